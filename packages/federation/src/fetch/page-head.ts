import { Parser } from 'htmlparser2';
import sanitizeHtml from 'sanitize-html';

/**
 * What a fetched web page says of itself, read the one way both services read it (link previews of
 * events' resources, statuses' preview cards): one pass of a streaming HTML parser, every text made
 * plain text, every URL an absolute http(s) one, an oEmbed player only ever one https iframe
 * (CVE-2023-36459). Remote pages are hostile: nothing here trusts their markup.
 */
export interface PageHead {
  /** `<meta>` contents by lower-cased `property` or `name`; the first of each wins. */
  meta: Map<string, string>;
  /** The `<title>` text, raw (callers make it plain text and cap it). */
  title: string | null;
  /** The oEmbed discovery link (`type="application/json+oembed"`), as written. */
  oembedUrl: string | null;
  /** The first icon link (`rel` with `icon`, not `apple-touch-icon-…`), as written. */
  iconUrl: string | null;
  canonical: string | null;
  /** `<html lang>`. */
  language: string | null;
}

/** Longest `<title>` text kept while parsing (callers cap it further). */
const TITLE_READ_LIMIT = 800;
const URL_LIMIT = 2048;
const PLAYER_HTML_LIMIT = 4000;

export function readPageHead(html: string): PageHead {
  const head: PageHead = {
    meta: new Map(),
    title: null,
    oembedUrl: null,
    iconUrl: null,
    canonical: null,
    language: null,
  };
  let inTitle = false;
  let titleText = '';
  const parser = new Parser(
    {
      onopentag(name, attributes) {
        if (name === 'html' && attributes.lang && head.language === null) head.language = attributes.lang;
        if (name === 'meta') {
          const key = (attributes.property ?? attributes.name ?? '').trim().toLowerCase();
          const content = attributes.content;
          if (key && content !== undefined && !head.meta.has(key)) head.meta.set(key, content);
        } else if (name === 'title' && head.title === null) {
          inTitle = true;
        } else if (name === 'link' && attributes.href) {
          const relText = (attributes.rel ?? '').toLowerCase();
          const rel = relText.split(/\s+/);
          const type = (attributes.type ?? '').toLowerCase();
          if (type === 'application/json+oembed' && !head.oembedUrl) head.oembedUrl = attributes.href;
          if (rel.includes('canonical') && !head.canonical) head.canonical = attributes.href;
          if (relText.includes('icon') && !relText.includes('-icon-') && !head.iconUrl)
            head.iconUrl = attributes.href;
        }
      },
      ontext(text) {
        if (inTitle && titleText.length < TITLE_READ_LIMIT) titleText += text;
      },
      onclosetag(name) {
        if (name === 'title' && inTitle) {
          inTitle = false;
          head.title = titleText;
        }
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.end(html);
  return head;
}

/**
 * Plain text: only the text of any markup (script and style contents dropped), control and
 * direction characters and angle brackets made spaces, white space collapsed, then capped with `…`.
 */
export function plainText(value: string | null | undefined, limit: number): string | null {
  if (value === null || value === undefined) return null;
  let text = '';
  let skipped = 0;
  const parser = new Parser(
    {
      onopentag(name) {
        if (name === 'script' || name === 'style') skipped += 1;
      },
      onclosetag(name) {
        if ((name === 'script' || name === 'style') && skipped > 0) skipped -= 1;
      },
      ontext(chunk) {
        if (skipped === 0) text += chunk;
      },
    },
    { decodeEntities: true },
  );
  parser.end(value);
  const clean = text
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069]/g, ' ')
    .replace(/[<>]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (clean === '') return null;
  const chars = Array.from(clean);
  return chars.length > limit ? `${chars.slice(0, limit - 1).join('')}…` : clean;
}

/** An absolute http(s) URL resolved against `base`, or null (javascript:, data:, credentials, too long). */
export function absoluteUrl(value: string | null | undefined, base?: string): string | null {
  if (!value) return null;
  try {
    const url = new URL(value.trim(), base);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    if (url.username || url.password) return null;
    return url.href.length <= URL_LIMIT ? url.href : null;
  } catch {
    return null;
  }
}

/** An oEmbed player reduced to one https iframe; anything else gives null. */
export function playerHtml(html: string | null | undefined): string | null {
  if (!html) return null;
  const clean = sanitizeHtml(html, {
    allowedTags: ['iframe'],
    allowedAttributes: { iframe: ['src', 'width', 'height', 'allowfullscreen', 'frameborder', 'title'] },
    allowedSchemes: ['https'],
    allowProtocolRelative: false,
    allowedSchemesAppliedToAttributes: ['src'],
    exclusiveFilter: (frame) => frame.tag === 'iframe' && !/^https:\/\//.test(frame.attribs.src ?? ''),
  }).trim();
  if (clean === '' || clean.length > PLAYER_HTML_LIMIT) return null;
  if (!/^<iframe [^>]*src="https:[^"]*"[^>]*><\/iframe>$/.test(clean)) return null;
  return clean;
}

/** A page's text in the charset its Content-Type names (UTF-8 when it names none or an unknown one). */
export function decodeBody(body: Buffer, contentType: string): string {
  const label = /charset=["']?([\w-]+)/.exec(contentType)?.[1] ?? 'utf-8';
  try {
    return new TextDecoder(label).decode(body);
  } catch {
    return new TextDecoder('utf-8').decode(body);
  }
}

export type OEmbedType = 'link' | 'photo' | 'video' | 'rich';

/** The fields of an oEmbed document a preview uses, each as the document's text (numbers as text). */
export interface OEmbedData {
  type: OEmbedType;
  title: string | null;
  /** The photo itself for `photo`, else the thumbnail. */
  image: string | null;
  width: string | null;
  height: string | null;
  authorName: string | null;
  authorUrl: string | null;
  providerName: string | null;
  providerUrl: string | null;
  /** The player markup of `video` and `rich` documents, unsanitized: pass it through `playerHtml`. */
  html: string | null;
}

/**
 * An oEmbed document read as far as a preview needs it, or null when it is not an object, not of one of
 * the `accepted` types, or a `photo` without its `url`.
 */
export function readOEmbed(document: unknown, accepted: readonly OEmbedType[]): OEmbedData | null {
  if (typeof document !== 'object' || document === null || Array.isArray(document)) return null;
  const data = document as Record<string, unknown>;
  const text = (key: string): string | null => {
    const value = data[key];
    return typeof value === 'string' ? value : typeof value === 'number' ? String(value) : null;
  };
  const type = accepted.find((known) => known === text('type'));
  if (!type) return null;
  if (type === 'photo' && !text('url')) return null;
  return {
    type,
    title: text('title'),
    image: type === 'photo' ? text('url') : text('thumbnail_url'),
    width: text('width'),
    height: text('height'),
    authorName: text('author_name'),
    authorUrl: text('author_url'),
    providerName: text('provider_name'),
    providerUrl: text('provider_url'),
    html: type === 'video' || type === 'rich' ? text('html') : null,
  };
}

const DIMENSION_LIMIT = 10_000;

/** A width or height given as text (oEmbed, `og:image:width`): a whole number of 1 to 10,000, else null. */
export function pageDimension(value: string | null | undefined): number | null {
  if (!value || !/^\s*\d{1,6}\s*$/.test(value)) return null;
  const number = Number(value);
  return number > 0 && number <= DIMENSION_LIMIT ? number : null;
}
