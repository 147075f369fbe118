import {
  absoluteUrl,
  pageDimension,
  plainText,
  playerHtml,
  type OEmbedData,
  type PageHead,
} from '@agora/federation';
import { Parser } from 'htmlparser2';

/**
 * What a linked page tells of itself, read the way Mastodon's LinkDetailsExtractor and oEmbed
 * discovery do: every text is plain text (markup dropped, controls removed, capped), every URL an
 * absolute http(s) URL, and an oEmbed `html` only ever one https iframe (CVE-2023-36459).
 */
export interface CardData {
  url: string;
  type: 'link' | 'photo' | 'video' | 'rich';
  title: string;
  description: string;
  authorName: string;
  authorUrl: string;
  providerName: string;
  providerUrl: string;
  html: string;
  width: number;
  height: number;
  embedUrl: string;
  imageRemoteUrl: string | null;
  language: string | null;
  publishedAt: Date | null;
}

export const TEXT_LIMITS = { title: 200, description: 1000, name: 200 } as const;
/** The card of a page from its head and (when discovered) its oEmbed document. Null: nothing worth a card. */
export function cardFromPage(pageUrl: string, head: PageHead, oembed: OEmbedData | null): CardData | null {
  const meta = (...names: string[]) => names.map((name) => head.meta.get(name)).find(Boolean) ?? null;
  const player = playerHtml(oembed?.html ?? null);
  // An oEmbed `video`/`rich` without a usable iframe is shown as a plain link.
  const type = oembed ? (oembed.type === 'photo' || player ? oembed.type : 'link') : 'link';
  const title = plainText(
    oembed?.title ?? meta('og:title', 'twitter:title') ?? head.title,
    TEXT_LIMITS.title,
  );
  if (!title) return null;
  const published = meta('article:published_time');
  const publishedAt = published && !Number.isNaN(Date.parse(published)) ? new Date(published) : null;
  const language = (meta('og:locale') ?? head.language ?? '').slice(0, 2).toLowerCase();
  return {
    url: pageUrl,
    type,
    title,
    description:
      plainText(meta('og:description', 'twitter:description', 'description'), TEXT_LIMITS.description) ?? '',
    authorName: plainText(oembed?.authorName ?? meta('author'), TEXT_LIMITS.name) ?? '',
    authorUrl: absoluteUrl(oembed?.authorUrl ?? null, pageUrl) ?? '',
    providerName: plainText(oembed?.providerName ?? meta('og:site_name'), TEXT_LIMITS.name) ?? '',
    providerUrl: absoluteUrl(oembed?.providerUrl ?? null, pageUrl) ?? '',
    html: type === 'video' || type === 'rich' ? (player ?? '') : '',
    width: pageDimension(oembed?.width ?? meta('og:image:width')) ?? 0,
    height: pageDimension(oembed?.height ?? meta('og:image:height')) ?? 0,
    embedUrl: type === 'photo' ? (absoluteUrl(oembed?.image ?? null, pageUrl) ?? '') : '',
    imageRemoteUrl: absoluteUrl(
      oembed?.image ??
        meta('og:image:secure_url', 'og:image:url', 'og:image', 'twitter:image', 'twitter:image:src'),
      pageUrl,
    ),
    language: /^[a-z]{2}$/.test(language) ? language : null,
    publishedAt,
  };
}

/**
 * The first link of a status's rendered content that is not a mention or a hashtag (Mastodon's
 * FetchLinkCardService skips `a.mention`, `a.hashtag` and `rel=tag`), or null.
 */
export function firstLink(content: string): string | null {
  let found: string | null = null;
  const parser = new Parser(
    {
      onopentag(name, attributes) {
        if (found !== null || name !== 'a' || !attributes.href) return;
        const classes = (attributes.class ?? '').split(/\s+/);
        const rel = (attributes.rel ?? '').split(/\s+/);
        if (classes.includes('mention') || classes.includes('hashtag') || rel.includes('tag')) return;
        found = absoluteUrl(attributes.href);
      },
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true },
  );
  parser.end(content);
  return found;
}
