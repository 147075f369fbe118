import { acctOf } from '@agora/federation';
import { escapeHtml } from '../accounts/profile-text.js';
import type { StatusView } from '../statuses/views/status.view.js';

/** Mastodon's OEmbedSerializer: a `rich` document for one of our public or unlisted statuses. */
export interface OEmbedJson {
  type: 'rich';
  version: '1.0';
  title: string;
  author_name: string;
  author_url: string;
  provider_name: string;
  provider_url: string;
  cache_age: number;
  html: string;
  width: number;
  height: null;
}

/**
 * The status id a URL of ours names (`/@name/:id` or `/users/:name/statuses/:id`, on our host), with
 * the username it was under; null for anything else.
 */
export function statusOfUrl(value: string, publicUrl: string): { username: string; id: string } | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return null;
  }
  if (url.host !== new URL(publicUrl).host) return null;
  const match =
    /^\/@([A-Za-z0-9_]+)\/(\d{1,19})\/?$/.exec(url.pathname) ??
    /^\/users\/([A-Za-z0-9_]+)\/statuses\/(\d{1,19})\/?$/.exec(url.pathname);
  return match ? { username: match[1]!, id: match[2]! } : null;
}

/**
 * The embed: a blockquote carrying the status's own HTML (rendered and sanitized by us when it was
 * posted) and a link to it; no script, so a consumer shows exactly that markup.
 */
export function oembedOf(
  view: StatusView,
  options: { publicUrl: string; providerName: string; maxWidth: number | undefined },
): OEmbedJson {
  const { actor } = view.account;
  const authorUrl = actor.url ?? actor.uri;
  const statusUrl = view.row.url ?? view.row.uri ?? authorUrl;
  const width = Math.min(Math.max(options.maxWidth ?? 400, 250), 1000);
  const html =
    `<blockquote class="mastodon-embed" style="max-width: ${width}px;">` +
    (view.row.spoilerText === '' ? view.row.content : `<p>${escapeHtml(view.row.spoilerText)}</p>`) +
    `<p>— <a href="${escapeHtml(authorUrl)}">${escapeHtml(actor.displayName || actor.username)}</a> ` +
    `(@${escapeHtml(acctOf(actor))}) <a href="${escapeHtml(statusUrl)}">${escapeHtml(view.row.createdAt.toISOString())}</a></p>` +
    '</blockquote>';
  return {
    type: 'rich',
    version: '1.0',
    title: `New status by ${actor.username}`,
    author_name: actor.displayName || actor.username,
    author_url: authorUrl,
    provider_name: options.providerName,
    provider_url: `${options.publicUrl}/`,
    cache_age: 86_400,
    html,
    width,
    height: null,
  };
}
