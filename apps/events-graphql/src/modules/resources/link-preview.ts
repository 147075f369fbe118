import { BadInput } from '@agora/core';
import {
  absoluteUrl,
  decodeBody,
  FetchError,
  pageDimension,
  plainText,
  playerHtml,
  readOEmbed,
  readPageHead,
  type GuardedFetch,
  type OEmbedData,
  type GuardedResponse,
} from '@agora/federation';

/** What a link resource's page tells of itself (GraphQL `ResourceMetadata`); every text is plain text. */
export interface LinkMetadata {
  type: string | null;
  title: string | null;
  description: string | null;
  imageRemoteUrl: string | null;
  width: number | null;
  height: number | null;
  authorName: string | null;
  authorUrl: string | null;
  providerName: string | null;
  providerUrl: string | null;
  /** An oEmbed video player: one sanitized https iframe, nothing else. */
  html: string | null;
  faviconUrl: string | null;
}

export const PREVIEW_MESSAGES = {
  // The reference's `unknown_resource` (400) for anything that fails to fetch.
  unknown: 'Unknown Resource',
  noTitle: 'Unable to fetch resource details from this URL.',
} as const;

export interface LinkPreviewOptions {
  /** The federation package's guarded client: private addresses refused, time and size capped. */
  fetch: GuardedFetch;
  /** Budget of the page's fetch, redirects included (the reference's 10 s). */
  timeoutMs?: number;
  /** Cap of the page's body (the reference's 2 MB). */
  maxBodyBytes?: number;
}

const TEXT_LIMITS = { title: 200, description: 1000, name: 200, type: 50 } as const;
const OEMBED_MAX_BYTES = 64 * 1024;
const FAVICON_TIMEOUT_MS = 3000;

/**
 * Reads a link's preview as the reference's rich-media parser does (spec behaviour 27): oEmbed
 * (discovered from the page's `<link type="application/json+oembed">`), OpenGraph and Twitter card
 * meta, the page's own `<title>` and description, and its favicon. Everything goes through the
 * guarded fetch; each text is reduced to plain text and capped, each URL must be absolute http(s).
 */
export class LinkPreviews {
  private readonly timeoutMs: number;
  private readonly maxBodyBytes: number;

  constructor(private readonly options: LinkPreviewOptions) {
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.maxBodyBytes = options.maxBodyBytes ?? 2_000_000;
  }

  async preview(address: string): Promise<LinkMetadata> {
    const url = absoluteUrl(address);
    if (!url) throw unknownResource();
    const page = await this.get(url, {
      accept: 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.1',
    });
    if (!page.ok) throw unknownResource();
    const contentType = (page.headers['content-type'] ?? '').toLowerCase();
    const base = page.url;
    if (!contentType.startsWith('text/html') && !contentType.startsWith('application/xhtml')) {
      return mediaMetadata(page, contentType);
    }
    const found = readPageHead(decodeBody(page.body, contentType));
    const oembed = found.oembedUrl ? await this.oembed(absoluteUrl(found.oembedUrl, base)) : null;
    const meta = (...names: string[]) => names.map((name) => found.meta.get(name)).find(Boolean) ?? null;
    const metadata: LinkMetadata = {
      type: plainText(oembed?.type ?? meta('og:type'), TEXT_LIMITS.type),
      title: plainText(oembed?.title ?? meta('og:title', 'twitter:title') ?? found.title, TEXT_LIMITS.title),
      description: plainText(
        meta('og:description', 'twitter:description', 'description'),
        TEXT_LIMITS.description,
      ),
      imageRemoteUrl: absoluteUrl(
        oembed?.image ??
          meta('og:image:secure_url', 'og:image:url', 'og:image', 'twitter:image', 'twitter:image:src'),
        base,
      ),
      width: pageDimension(oembed?.width ?? meta('og:image:width')),
      height: pageDimension(oembed?.height ?? meta('og:image:height')),
      authorName: plainText(oembed?.authorName ?? null, TEXT_LIMITS.name),
      authorUrl: absoluteUrl(oembed?.authorUrl ?? null, base),
      providerName: plainText(oembed?.providerName ?? meta('og:site_name'), TEXT_LIMITS.name),
      providerUrl: absoluteUrl(oembed?.providerUrl ?? null, base),
      html: playerHtml(oembed?.html ?? null),
      faviconUrl: found.iconUrl ? absoluteUrl(found.iconUrl, base) : await this.rootFavicon(new URL(base)),
    };
    if (!metadata.title) throw new BadInput(PREVIEW_MESSAGES.noTitle, { code: 'unknown_error' });
    return metadata;
  }

  private async get(
    url: string,
    headers: Record<string, string>,
    limits: { timeoutMs?: number; maxBodyBytes?: number } = {},
  ): Promise<GuardedResponse> {
    try {
      return await this.options.fetch.get(url, {
        signed: false,
        headers,
        timeoutMs: limits.timeoutMs ?? this.timeoutMs,
        maxBodyBytes: limits.maxBodyBytes ?? this.maxBodyBytes,
      });
    } catch (error) {
      // Refused addresses, timeouts, oversized bodies, network failures: the reference's one answer.
      if (error instanceof FetchError) throw unknownResource();
      throw error;
    }
  }

  /** The oEmbed document of a page, or null when it has none we use (no type, `rich`, broken). */
  private async oembed(url: string | null): Promise<OEmbedData | null> {
    if (!url) return null;
    try {
      const answer = await this.get(url, { accept: 'application/json' }, { maxBodyBytes: OEMBED_MAX_BYTES });
      if (!answer.ok) return null;
      // The reference's filter: link, photo and video documents; `rich` and typeless ones are not used.
      return readOEmbed(answer.json(), ['link', 'photo', 'video']);
    } catch {
      return null;
    }
  }

  /** `/favicon.ico` of the page's origin when it answers a HEAD with 2xx, as the reference tries. */
  private async rootFavicon(page: URL): Promise<string | null> {
    const favicon = `${page.origin}/favicon.ico`;
    try {
      const answer = await this.options.fetch.request('HEAD', favicon, undefined, {
        signed: false,
        timeoutMs: FAVICON_TIMEOUT_MS,
        // A HEAD answer declares the length of the icon it does not send.
        maxBodyBytes: this.maxBodyBytes,
      });
      return answer.ok ? favicon : null;
    } catch {
      return null;
    }
  }
}

function unknownResource(): BadInput {
  return new BadInput(PREVIEW_MESSAGES.unknown, { code: 'unknown_resource', malformed: true });
}

/** A file that is not a page: its name (Content-Disposition, else the URL's last segment), its URL if an image. */
function mediaMetadata(page: GuardedResponse, contentType: string): LinkMetadata {
  const disposition = page.headers['content-disposition'] ?? '';
  const named =
    /filename\*=utf-8''([^;]+)/i.exec(disposition)?.[1] ?? /filename="?([^";]+)"?/i.exec(disposition)?.[1];
  const segment = new URL(page.url).pathname.split('/').filter(Boolean).at(-1);
  const title = plainText(safeDecode(named ?? segment ?? ''), TEXT_LIMITS.title);
  if (!title) throw new BadInput(PREVIEW_MESSAGES.noTitle, { code: 'unknown_error' });
  return {
    type: null,
    title,
    description: null,
    imageRemoteUrl: contentType.startsWith('image/') ? absoluteUrl(page.url, page.url) : null,
    width: null,
    height: null,
    authorName: null,
    authorUrl: null,
    providerName: null,
    providerUrl: null,
    html: null,
    faviconUrl: null,
  };
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
