import type { PreviewCardRow } from '../modules/preview-cards/preview-card.service.js';

/** Mastodon's PreviewCard (4.3 `authors`); every text was reduced to plain text when stored. */
export interface PreviewCardJson {
  url: string;
  title: string;
  description: string;
  language: string | null;
  type: PreviewCardRow['type'];
  author_name: string;
  author_url: string;
  provider_name: string;
  provider_url: string;
  /** An https iframe (video and rich cards) or empty; never the remote page's own markup. */
  html: string;
  width: number;
  height: number;
  image: string | null;
  image_description: string;
  embed_url: string;
  blurhash: string | null;
  published_at: string | null;
  authors: Array<{ name: string; url: string; account: null }>;
}

export function serializePreviewCard(card: PreviewCardRow): PreviewCardJson {
  return {
    url: card.url,
    title: card.title,
    description: card.description,
    language: card.language,
    type: card.type,
    author_name: card.authorName,
    author_url: card.authorUrl,
    provider_name: card.providerName,
    provider_url: card.providerUrl,
    html: card.html,
    width: card.width,
    height: card.height,
    image: card.imageUrl,
    image_description: '',
    embed_url: card.embedUrl,
    blurhash: null,
    published_at: card.publishedAt === null ? null : card.publishedAt.toISOString(),
    authors:
      card.authorName === '' && card.authorUrl === ''
        ? []
        : [{ name: card.authorName, url: card.authorUrl, account: null }],
  };
}
