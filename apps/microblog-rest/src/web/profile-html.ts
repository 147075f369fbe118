import { createHash } from 'node:crypto';
import sanitizeHtml from 'sanitize-html';
import { sanitizeRemoteHtml } from '@agora/federation';
import type { AccountJson } from '../entities/account.js';
import type { StatusJson } from '../entities/status.js';
import { escapeHtml } from '../modules/accounts/profile-text.js';

/** What every page shows around its content. */
export interface PageFrame {
  instanceTitle: string;
  /** The signed-in viewer's `@name`, when the browser has a session. */
  signedInAs: string | null;
}

/** The OpenGraph description: at most this many characters of plain text. */
const DESCRIPTION_LENGTH = 200;

const STYLE = `
body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:0 auto;padding:1rem;color:#222}
header.site{display:flex;justify-content:space-between;font-size:.9rem;color:#555;margin-bottom:1rem}
.profile{display:flex;gap:1rem;align-items:center}
.profile img{width:96px;height:96px;border-radius:12px;object-fit:cover}
.profile h1{margin:0;font-size:1.4rem}
.acct{color:#555}
.counts{color:#555;font-size:.9rem}
article.status{border-top:1px solid #ddd;padding:.75rem 0}
article.status .meta{font-size:.85rem;color:#555}
article.status img.media{max-width:100%;border-radius:8px}
.invisible{display:none}
.ellipsis::after{content:"…"}
`;

/**
 * No scripts at all; the one stylesheet by its hash; images from here and from where media are
 * stored; nothing else, no framing.
 */
/** The CSP hash of the one inline style (a constant). */
const STYLE_HASH = createHash('sha256').update(STYLE).digest('base64');

export function pageHeaders(mediaOrigin: string, signedIn: boolean): Record<string, string> {
  const images = [...new Set(["'self'", mediaOrigin])].join(' ');
  return {
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Security-Policy': [
      "default-src 'none'",
      `style-src 'sha256-${STYLE_HASH}'`,
      `img-src ${images}`,
      "base-uri 'none'",
      "form-action 'none'",
      "frame-ancestors 'none'",
    ].join('; '),
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'strict-origin-when-cross-origin',
    // A page that names the signed-in viewer is theirs alone.
    'Cache-Control': signedIn ? 'private, no-store' : 'no-cache',
    Vary: 'Accept, Cookie',
  };
}

interface Meta {
  title: string;
  description: string;
  url: string;
  type: 'profile' | 'article';
  image: string;
  /** The ActivityPub document of the same thing. */
  activityPub: string;
  siteName: string;
  extra?: Array<[string, string]>;
  /** oEmbed discovery (a status page: `/api/oembed?url=`). */
  oembed?: string;
  /** The account's Atom feed (a local profile page, as the early web pages linked it). */
  atom?: string;
}

function document(meta: Meta, frame: PageFrame, body: string): string {
  const tag = (property: string, content: string) =>
    `<meta property="${property}" content="${escapeHtml(content)}">`;
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(meta.title)}</title>`,
    `<meta name="description" content="${escapeHtml(meta.description)}">`,
    tag('og:site_name', meta.siteName),
    tag('og:type', meta.type),
    tag('og:title', meta.title),
    tag('og:description', meta.description),
    tag('og:url', meta.url),
    tag('og:image', meta.image),
    ...(meta.extra ?? []).map(([property, content]) => tag(property, content)),
    '<meta name="twitter:card" content="summary">',
    `<link rel="canonical" href="${escapeHtml(meta.url)}">`,
    `<link rel="alternate" type="application/activity+json" href="${escapeHtml(meta.activityPub)}">`,
    ...(meta.oembed
      ? [`<link rel="alternate" type="application/json+oembed" href="${escapeHtml(meta.oembed)}">`]
      : []),
    ...(meta.atom
      ? [`<link rel="alternate" type="application/atom+xml" href="${escapeHtml(meta.atom)}">`]
      : []),
    `<style>${STYLE}</style>`,
    '</head>',
    '<body>',
    `<header class="site"><span>${escapeHtml(frame.instanceTitle)}</span>${
      frame.signedInAs === null
        ? ''
        : `<span id="signed-in">Signed in as ${escapeHtml(frame.signedInAs)}</span>`
    }</header>`,
    body,
    '</body>',
    '</html>',
  ].join('\n');
}

function displayNameOf(account: AccountJson): string {
  return account.display_name.trim() === '' ? account.username : account.display_name;
}

/** `Name (@name@host)`, as the reference titles its pages. */
function titleOf(account: AccountJson, domain: string): string {
  return `${displayNameOf(account)} (@${account.acct.includes('@') ? account.acct : `${account.acct}@${domain}`})`;
}

function statusHtml(status: StatusJson, link: boolean): string {
  const when = new Date(status.created_at);
  const stamp = `<time datetime="${escapeHtml(status.created_at)}">${escapeHtml(when.toUTCString())}</time>`;
  const media = status.media_attachments
    .filter((item) => item.preview_url !== null)
    .map(
      (item) =>
        `<a href="${escapeHtml(item.url ?? item.preview_url ?? '')}"><img class="media" src="${escapeHtml(
          item.preview_url ?? '',
        )}" alt="${escapeHtml(item.description ?? '')}"></a>`,
    )
    .join('');
  // Statuses are stored as sanitized HTML; sanitized again here, so nothing a page shows is trusted.
  const content = sanitizeRemoteHtml(status.content);
  const body =
    status.spoiler_text === ''
      ? `<div class="content">${content}${media}</div>`
      : `<details><summary>${escapeHtml(status.spoiler_text)}</summary><div class="content">${content}${media}</div></details>`;
  const permalink = link && status.url ? `<a href="${escapeHtml(status.url)}">${stamp}</a>` : stamp;
  return `<article class="status" id="status-${escapeHtml(status.id)}">${body}<div class="meta">${permalink} · ${status.replies_count} replies · ${status.reblogs_count} boosts · ${status.favourites_count} favourites</div></article>`;
}

/** The page of an account and its latest public statuses (`/@name`). */
export function accountPage(
  input: { account: AccountJson; statuses: StatusJson[]; olderUrl: string | null; domain: string },
  frame: PageFrame,
): string {
  const { account, statuses } = input;
  const title = titleOf(account, input.domain);
  const note = sanitizeRemoteHtml(account.note);
  const body = [
    '<main>',
    `<section class="profile"><img src="${escapeHtml(account.avatar)}" alt=""><div><h1>${escapeHtml(
      displayNameOf(account),
    )}</h1><div class="acct">@${escapeHtml(account.acct)}@${escapeHtml(input.domain)}</div>` +
      `<div class="counts">${account.statuses_count} posts · ${account.following_count} following · ${account.followers_count} followers</div></div></section>`,
    note === '' ? '' : `<div class="note">${note}</div>`,
    `<section id="statuses">${
      statuses.length === 0
        ? '<p>No posts yet.</p>'
        : statuses.map((status) => statusHtml(status, true)).join('\n')
    }</section>`,
    input.olderUrl ? `<nav><a rel="next" href="${escapeHtml(input.olderUrl)}">Older posts</a></nav>` : '',
    '</main>',
  ].join('\n');
  return document(
    {
      title,
      description: textOf(account.note) || `${account.statuses_count} posts`,
      url: account.url ?? account.uri,
      type: 'profile',
      image: account.avatar,
      activityPub: account.uri,
      ...(account.acct.includes('@') ? {} : { atom: `${account.uri}.atom` }),
      siteName: frame.instanceTitle,
      extra: [['profile:username', account.acct]],
    },
    frame,
    body,
  );
}

/** The page of one public status (`/@name/:id`). */
export function statusPage(input: { status: StatusJson; domain: string }, frame: PageFrame): string {
  const { status } = input;
  const account = status.account;
  const image =
    status.media_attachments.find((item) => item.type === 'image' && item.preview_url !== null)
      ?.preview_url ??
    status.media_attachments.find((item) => item.preview_url !== null)?.preview_url ??
    account.avatar;
  // A content warning stands in for the text it hides, as the reference does.
  const description =
    status.spoiler_text !== '' ? `Content warning: ${status.spoiler_text}` : textOf(status.content);
  const body = [
    '<main>',
    `<section class="profile"><img src="${escapeHtml(account.avatar)}" alt=""><div><h1><a href="${escapeHtml(
      account.url ?? account.uri,
    )}">${escapeHtml(displayNameOf(account))}</a></h1><div class="acct">@${escapeHtml(account.acct)}@${escapeHtml(
      input.domain,
    )}</div></div></section>`,
    statusHtml(status, false),
    '</main>',
  ].join('\n');
  return document(
    {
      title: titleOf(account, input.domain),
      description,
      url: status.url ?? status.uri,
      type: 'article',
      image,
      activityPub: status.uri,
      siteName: frame.instanceTitle,
      extra: [['article:published_time', status.created_at]],
      oembed: `${new URL(status.uri).origin}/api/oembed?url=${encodeURIComponent(status.url ?? status.uri)}`,
    },
    frame,
    body,
  );
}

/** Plain text of sanitized HTML, cut for a description (entities decoded; escaped again where used). */
export function textOf(html: string): string {
  const withBreaks = html.replace(/<\/p>\s*<p>/gi, '\n\n').replace(/<br\s*\/?>/gi, '\n');
  const stripped = sanitizeHtml(withBreaks, { allowedTags: [], allowedAttributes: {} });
  const text = decodeEntities(stripped).replace(/\s+/g, ' ').trim();
  const chars = [...text];
  return chars.length <= DESCRIPTION_LENGTH ? text : `${chars.slice(0, DESCRIPTION_LENGTH - 1).join('')}…`;
}

const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
    if (name[0] === '#') {
      const code =
        name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      return Number.isInteger(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return NAMED[name.toLowerCase()] ?? whole;
  });
}
