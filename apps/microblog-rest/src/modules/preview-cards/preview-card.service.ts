import { QueryTypes, type Sequelize } from 'sequelize';
import type { JobQueue, Logger } from '@agora/core';
import { preparedStatement } from '@agora/db';
import {
  absoluteUrl,
  decodeBody,
  FetchError,
  readOEmbed,
  readPageHead,
  type GuardedFetch,
  type OEmbedData,
  type GuardedResponse,
} from '@agora/federation';
import type { RemoteMediaFile, RemoteMediaKind } from '@agora/media';
import type { DistributedStatus, StatusListener } from '../statuses/status.service.js';
import { cardFromPage, firstLink, type CardData } from './card-page.js';

/** The job that reads a status's first link and links its card (after the status is posted or edited). */
export const FETCH_PREVIEW_CARD_JOB = 'microblog.preview-card';

/** A stored card (one row of `preview_cards`); `imageUrl` is the local copy's public URL. */
export interface PreviewCardRow {
  id: string;
  url: string;
  type: CardData['type'];
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
  imageUrl: string | null;
  language: string | null;
  publishedAt: Date | null;
}

export interface PreviewCardServiceDeps {
  sequelize: Sequelize;
  queue: JobQueue;
  logger: Logger;
  /** The federation package's guarded client: private addresses refused at every hop, time and size capped. */
  fetch: GuardedFetch;
  /** The remote-media cache: the card's image goes through the upload pipeline and is served locally. */
  images: { cache(url: string, kind: RemoteMediaKind): Promise<RemoteMediaFile> };
  /** Links to this server are not carded (Mastodon's `bad_url?`). */
  publicUrl: string;
  /** Budget of one page fetch, redirects included. */
  timeoutMs?: number;
  /** Cap of a page's body; a bigger page gets no card. */
  maxPageBytes?: number;
}

const OEMBED_MAX_BYTES = 64 * 1024;
/** A card younger than this is reused for another status linking the same URL (Mastodon: two weeks). */
const CARD_TTL_MS = 14 * 24 * 60 * 60 * 1000;

export const CARD_COLUMNS = `c.id::text AS id, c.url, c.type, c.title, c.description,
  c.author_name AS "authorName", c.author_url AS "authorUrl", c.provider_name AS "providerName",
  c.provider_url AS "providerUrl", c.html, c.width, c.height, c.embed_url AS "embedUrl",
  c.image_url AS "imageUrl", c.language, c.published_at AS "publishedAt"`;

const CARDS_BY_STATUS = preparedStatement<PreviewCardRow & { statusId: string }, [ids: readonly string[]]>({
  name: 'microblog_preview_cards_by_status',
  text: `SELECT spc.status_id::text AS "statusId", ${CARD_COLUMNS}
           FROM status_preview_cards spc JOIN preview_cards c ON c.id = spc.preview_card_id
          WHERE spc.status_id = ANY($1::bigint[])`,
});

/**
 * Preview cards (issue 16 §3): the first link of a new or edited status is read in the background,
 * through the guarded fetch, and the card (OpenGraph/Twitter meta, oEmbed discovery) is stored once
 * per URL and linked to the status. Nothing the remote page says reaches a client unsanitized.
 */
export class PreviewCardService {
  private readonly timeoutMs: number;
  private readonly maxPageBytes: number;
  private readonly localHost: string;

  constructor(private readonly deps: PreviewCardServiceDeps) {
    this.timeoutMs = deps.timeoutMs ?? 10_000;
    this.maxPageBytes = deps.maxPageBytes ?? 1024 * 1024;
    this.localHost = new URL(deps.publicUrl).host;
  }

  /** Posted (after the fan-out) and edited statuses get their card fetched by a job. */
  statusListener(): StatusListener {
    return {
      // A new status without a link to read has no card to get (an edit may take one away, so an
      // edited status is always looked at).
      distributed: async (statusId, status) => {
        if (status && (status.reblog || this.cardUrl(status.content) === null)) return;
        await this.queueFetch(statusId);
      },
      edited: (statusId) => this.queueFetch(statusId),
    };
  }

  /** The link whose card a status gets: its first link, unless that is to this server. */
  private cardUrl(content: DistributedStatus['content']): string | null {
    const link = firstLink(content);
    return link && new URL(link).host !== this.localHost ? link : null;
  }

  async queueFetch(statusId: string): Promise<void> {
    await this.deps.queue.send(FETCH_PREVIEW_CARD_JOB, { statusId });
  }

  /** The fetch worker (a no-op on role web); call before the queue starts. */
  async registerWorker(): Promise<void> {
    await this.deps.queue.work<{ statusId: string }>(FETCH_PREVIEW_CARD_JOB, async (job) => {
      await this.fetchFor(job.data.statusId);
    });
  }

  /** The card of a status's first link, stored and linked; returns it, or null when there is none. */
  async fetchFor(statusId: string): Promise<PreviewCardRow | null> {
    const { sequelize } = this.deps;
    const [status] = await sequelize.query<{ content: string }>(
      `SELECT content FROM statuses
        WHERE id = $1 AND deleted_at IS NULL AND reblog_of_id IS NULL`,
      { bind: [statusId], type: QueryTypes.SELECT },
    );
    if (!status) return null;
    const url = this.cardUrl(status.content);
    let card: PreviewCardRow | null = null;
    if (url !== null) card = (await this.freshCard(url)) ?? (await this.fetchCard(url));
    if (card === null) {
      // An edit that took the link out takes the card away.
      await sequelize.query('DELETE FROM status_preview_cards WHERE status_id = $1', { bind: [statusId] });
      return null;
    }
    await sequelize.query(
      `INSERT INTO status_preview_cards (status_id, preview_card_id)
       SELECT id, $2 FROM statuses WHERE id = $1
       ON CONFLICT (status_id) DO UPDATE SET preview_card_id = EXCLUDED.preview_card_id`,
      { bind: [statusId, card.id] },
    );
    return card;
  }

  private async freshCard(url: string): Promise<PreviewCardRow | null> {
    const [row] = await this.deps.sequelize.query<PreviewCardRow>(
      `SELECT ${CARD_COLUMNS} FROM preview_cards c
        WHERE c.url = $1 AND c.updated_at > now() - make_interval(secs => $2)`,
      { bind: [url, CARD_TTL_MS / 1000], type: QueryTypes.SELECT },
    );
    return row ?? null;
  }

  /** Reads the page (and its oEmbed document), copies the image, upserts the card. Null: no card. */
  private async fetchCard(url: string): Promise<PreviewCardRow | null> {
    const page = await this.get(url, 'text/html,application/xhtml+xml;q=0.9', this.maxPageBytes);
    if (!page?.ok) return null;
    const contentType = (page.headers['content-type'] ?? '').toLowerCase();
    if (!contentType.startsWith('text/html') && !contentType.startsWith('application/xhtml')) return null;
    const head = readPageHead(decodeBody(page.body, contentType));
    const oembed = head.oembedUrl ? await this.oembed(absoluteUrl(head.oembedUrl, page.url)) : null;
    const data = cardFromPage(url, head, oembed);
    if (!data) return null;
    let imageUrl: string | null = null;
    if (data.imageRemoteUrl) {
      const copy = await this.deps.images.cache(data.imageRemoteUrl, 'header').catch((error: unknown) => {
        this.deps.logger.info({ err: error, url: data.imageRemoteUrl }, 'preview card image not copied');
        return null;
      });
      imageUrl = copy?.localUrl ?? null;
    }
    const [row] = await this.deps.sequelize.query<PreviewCardRow>(
      `INSERT INTO preview_cards AS c (url, type, title, description, author_name, author_url, provider_name,
              provider_url, html, width, height, embed_url, image_remote_url, image_url, language, published_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)
       ON CONFLICT (url) DO UPDATE SET type = EXCLUDED.type, title = EXCLUDED.title,
              description = EXCLUDED.description, author_name = EXCLUDED.author_name,
              author_url = EXCLUDED.author_url, provider_name = EXCLUDED.provider_name,
              provider_url = EXCLUDED.provider_url, html = EXCLUDED.html, width = EXCLUDED.width,
              height = EXCLUDED.height, embed_url = EXCLUDED.embed_url,
              image_remote_url = EXCLUDED.image_remote_url, image_url = EXCLUDED.image_url,
              language = EXCLUDED.language, published_at = EXCLUDED.published_at, updated_at = now()
       RETURNING ${CARD_COLUMNS}`,
      {
        bind: [
          data.url,
          data.type,
          data.title,
          data.description,
          data.authorName,
          data.authorUrl,
          data.providerName,
          data.providerUrl,
          data.html,
          data.width,
          data.height,
          data.embedUrl,
          data.imageRemoteUrl,
          imageUrl,
          data.language,
          data.publishedAt,
        ],
        type: QueryTypes.SELECT,
      },
    );
    return row ?? null;
  }

  private async oembed(url: string | null): Promise<OEmbedData | null> {
    if (!url) return null;
    const answer = await this.get(url, 'application/json', OEMBED_MAX_BYTES);
    if (!answer?.ok) return null;
    try {
      return readOEmbed(answer.json(), ['link', 'photo', 'video', 'rich']);
    } catch {
      return null;
    }
  }

  /** A GET through the guarded fetch; null when it was refused, timed out, too large or failed. */
  private async get(url: string, accept: string, maxBodyBytes: number): Promise<GuardedResponse | null> {
    try {
      return await this.deps.fetch.get(url, {
        signed: false,
        headers: { accept },
        timeoutMs: this.timeoutMs,
        maxBodyBytes,
      });
    } catch (error) {
      if (!(error instanceof FetchError)) throw error;
      this.deps.logger.info({ url, error: error.name }, 'preview card page not fetched');
      return null;
    }
  }
}

/** The cards of many statuses in one query (status views). */
export async function loadCardsByStatus(
  sequelize: Sequelize,
  statusIds: readonly string[],
): Promise<Map<string, PreviewCardRow>> {
  if (statusIds.length === 0) return new Map();
  const rows = await CARDS_BY_STATUS.rows(sequelize, [statusIds]);
  return new Map(
    rows.map(({ statusId, ...card }) => [
      statusId,
      { ...card, publishedAt: card.publishedAt === null ? null : new Date(card.publishedAt) },
    ]),
  );
}
