import { BadInput, NotFound, type JobQueue, type Logger } from '@agora/core';
import { isRowId, preparedStatement } from '@agora/db';
import type { Actor, ActorStore } from '@agora/federation';
import { QueryTypes, UniqueConstraintError, type Sequelize, type Transaction } from 'sequelize';
import { detectAll } from 'tinyld';
import type { RemoteAccountImages } from '../accounts/account.service.js';
import { characterCount } from '../accounts/profile-text.js';
import type { NewPoll } from '../polls/poll-params.js';
import type { PollService } from '../polls/poll.service.js';
import { saveStatusEntities, saveStatusVersion } from './status-writes.js';
import { STATUS_COLUMNS, visibleTo, type StatusRow, type Visibility } from './status.model.js';
import { pageRows, pageSql, type PageRequest } from '../../http/link-pagination.js';
import { renderLinkedText, type LinkedText } from './linked-text.js';
import { statusLength } from './status-text.js';
import { loadStatusViews, type StatusView } from './views/status.view.js';
import { loadAccounts } from './views/accounts.view.js';
import { RenderedStatuses, type RenderLoaders } from './views/rendered-statuses.js';
import { readStatusFacts, type FactsPage } from './views/status-facts.js';
import type { SerializableAccount } from '../../entities/account.js';

export const RECORD_NOT_FOUND = 'Record not found';
/** Writes the home feeds of a new status or reblog (fan-out on write). */
export const FAN_OUT_JOB = 'microblog.statuses.fan-out';
/** Fan-out jobs run at once per worker process: the delivery queue's own default. */
const FAN_OUT_CONCURRENCY = 20;
/** Adds a newly followed account's recent statuses to a home feed, or takes them out on unfollow. */
export const HOME_MERGE_JOB = 'microblog.home.merge';
/** Followers per fan-out statement; a larger audience is split across statements run at once. */
const FAN_OUT_FOLLOWERS_PER_STATEMENT = 2500;
/** At most this many fan-out statements at once (each holds a pooled connection while it runs). */
const FAN_OUT_MAX_STATEMENTS = 4;

// The fan-out job's two statements per new status, named so PostgreSQL parses and plans them once per
// connection (ADR 0051). The first read: the author's audience size, what the listeners are told, and
// which other feeds the status can enter (`FeedFacts`).
const FAN_OUT_FIRST_READ = preparedStatement<
  { followers: number; content: string; reblog: boolean } & FeedFacts,
  [statusId: string]
>({
  name: 'agora_fan_out_first_read',
  text: `SELECT a.followers_count AS followers, s.content, s.reblog_of_id IS NOT NULL AS reblog,
                EXISTS (SELECT 1 FROM list_accounts la WHERE la.account_id = s.account_id) AS listed,
                s.visibility = 'direct' AS direct,
                EXISTS (SELECT 1 FROM statuses_tags st WHERE st.status_id = s.id) AS tagged
           FROM statuses s JOIN actors a ON a.id = s.account_id
          WHERE s.id = $1`,
});

/** One share (`actor_id % parts = part`) of the home-feed inserts of a status's local followers. */
const FAN_OUT_HOME_INSERT = preparedStatement<{ n: number }, [statusId: string, parts: number, part: number]>(
  {
    name: 'agora_fan_out_home_insert',
    writes: true,
    text: `WITH s AS (SELECT id, account_id, visibility FROM statuses WHERE id = $1 AND deleted_at IS NULL),
              inserted AS (
                INSERT INTO home_feed (account_id, status_id)
                SELECT f.actor_id, s.id FROM s
                  JOIN follows f ON f.target_actor_id = s.account_id AND f.accepted_at IS NOT NULL
                  JOIN actors a ON a.id = f.actor_id AND a.domain IS NULL
                 WHERE f.actor_id % $2 = $3
                   AND (s.visibility <> 'direct'
                    OR EXISTS (SELECT 1 FROM mentions m WHERE m.status_id = s.id AND m.account_id = f.actor_id))
                   -- An author in one of the follower's exclusive lists shows in that list, not at home.
                   AND NOT EXISTS (SELECT 1 FROM list_accounts la JOIN lists l ON l.id = la.list_id
                                    WHERE la.account_id = s.account_id AND l.account_id = f.actor_id AND l.exclusive)
                ON CONFLICT DO NOTHING RETURNING 1)
         SELECT count(*)::int AS n FROM inserted`,
  },
);
/** How many of a followed account's latest statuses a follow adds to the home feed. */
const MERGE_LIMIT = 400;
/** How long an Idempotency-Key answers with the status it made (the reference: 1 hour). */
const IDEMPOTENCY_SECONDS = 3600;
/** How far up and down a thread `context` walks (the reference's limits for anonymous callers). */
const ANCESTORS_LIMIT = 40;
const DESCENDANTS_LIMIT = 60;
const DESCENDANTS_LIMIT_SIGNED_IN = 4096;
const MIN_LANGUAGE_ACCURACY = 0.5;

export interface StatusLimits {
  maxCharacters: number;
  maxMediaAttachments: number;
  charactersReservedPerUrl: number;
  maxPinnedStatuses: number;
}

export interface StatusServiceDeps {
  sequelize: Sequelize;
  actors: ActorStore;
  queue: JobQueue;
  logger: Logger;
  publicUrl: string;
  limits: StatusLimits;
  remoteImages?: RemoteAccountImages | undefined;
  /** A status's poll: checked, written in its transaction, closed by its job, hydrated with it. */
  polls: PollService;
}

export interface NewStatus {
  text: string | undefined;
  mediaIds: string[];
  inReplyToId: string | undefined;
  sensitive: boolean | undefined;
  spoilerText: string | undefined;
  visibility: Visibility | undefined;
  language: string | undefined;
  idempotencyKey: string | undefined;
  applicationId: string | null;
  poll?: NewPoll | undefined;
  /** Publishing a scheduled status: the media it holds may be attached (and no other's). */
  scheduledStatusId?: string | undefined;
}

export interface StatusEdit {
  text: string | undefined;
  mediaIds: string[] | undefined;
  sensitive: boolean | undefined;
  spoilerText: string | undefined;
  language: string | undefined;
  /** The poll after the edit; null (or absent) removes one, as the reference's edit does. */
  poll?: NewPoll | null | undefined;
}

/**
 * Told of what happened to statuses once it is committed (notifications listen). `distributed` runs
 * in the fan-out job of a new status or reblog, after the home feeds are written, so a listener's
 * large fan-out costs the posting request nothing; the listeners of one status run at once.
 */
export interface StatusListener {
  /** `status`: what the fan-out read of it, when it could (a listener may then skip work it would not do). */
  distributed?(statusId: string, status?: DistributedStatus): Promise<void>;
  edited?(statusId: string): Promise<void>;
  favourited?(accountId: string, status: StatusRow, on: boolean): Promise<void>;
  /** `reblogIds`: the reblog rows that went (federation names them in Undo(Announce)). */
  unreblogged?(accountId: string, status: StatusRow, reblogIds?: string[]): Promise<void>;
  /**
   * A status (its row stays, with `deleted_at`) or a reblog (its row goes) of `accountId` was deleted;
   * `rebloggerIds`: for a status, the accounts whose reblogs went with it (federation tells them).
   */
  removed?(statusId: string, accountId: string, rebloggerIds?: string[]): Promise<void>;
}

/**
 * What the fan-out's first read tells the other feeds' writers (`addFeedWriter`'s `when`): whether the
 * author is a member of any list, the status is direct, it has hashtags.
 */
export interface FeedFacts {
  listed: boolean;
  direct: boolean;
  tagged: boolean;
}

/** What a listener of `distributed` is given about the status besides its id. */
export interface DistributedStatus {
  /** The rendered HTML (empty for a reblog). */
  content: string;
  reblog: boolean;
}

/** One version of a status (GET /history): the first and every edit. */
export interface StatusVersion {
  account: StatusView['account'];
  content: string;
  spoilerText: string;
  sensitive: boolean;
  createdAt: Date;
  media: StatusView['media'];
}

const MESSAGES = {
  blank: "Validation failed: Text can't be blank",
  tooLong: (limit: number) => `Validation failed: Text character limit of ${limit} exceeded`,
  tooManyMedia: (limit: number) => `Cannot attach more than ${limit} files`,
  mediaNotFound: (ids: string[]) => `Media ${ids.join(', ')} not found or already attached to another post`,
  notReady: 'Cannot attach files that have not finished processing. Try again in a moment!',
  imagesAndVideo: 'Cannot attach a video to a post that already contains images',
  reblogPrivate: 'Validation failed: Reblog of a private or direct post is not allowed',
  pinOwnership: "Validation failed: Someone else's post cannot be pinned",
  pinReblog: 'Validation failed: A boost cannot be pinned',
  pinDirect: 'Validation failed: Direct posts cannot be pinned',
  pinLimit: 'Validation failed: You have already pinned the maximum number of posts',
  noConversation: 'Validation failed: This post has no conversation to mute',
} as const;

/**
 * Statuses of local accounts: posting (text rendered by the linkifier, mentions, hashtags, media,
 * replies in their parent's conversation), edits with history, deletion, reblogs, favourites,
 * bookmarks, pins and conversation mutes. Reads answer only what the viewer may see (`visibleTo`).
 * Counters are the triggers' (ADR 0005); home feeds are written by the fan-out job.
 */
export class StatusService {
  /** Other feeds written on post by the fan-out job (the lists'), after the home feeds. */
  private readonly feedWriters: Array<{
    writer: (statusId: string) => Promise<unknown>;
    when?: keyof FeedFacts;
  }> = [];
  private readonly listeners: StatusListener[] = [];
  /**
   * This process's rendered statuses and accounts, checked against their render stamps on every
   * read (ADR 0039, 0047): shared by every list of statuses (timelines, search, threads…).
   */
  readonly rendered = new RenderedStatuses();
  /** How `rendered` fills its misses: the statuses view without a viewer, the accounts view. */
  readonly renderLoaders: RenderLoaders = {
    statuses: (ids) => this.views(ids, null),
    accounts: (ids) => this.accountViews(ids),
  };

  constructor(private readonly deps: StatusServiceDeps) {}

  /**
   * Adds a listener of committed changes (the composition root wires notifications). `first`: told
   * before the listeners already added (streaming: the live view should not wait for the others).
   */
  addListener(listener: StatusListener, options: { first?: boolean } = {}): void {
    if (options.first) this.listeners.unshift(listener);
    else this.listeners.push(listener);
  }

  /** Hydrated views of statuses for a viewer (a page of a timeline, a context). */
  views(ids: readonly string[], viewerId: string | null): Promise<Map<string, StatusView>> {
    return loadStatusViews(this.deps, ids, viewerId);
  }

  /**
   * What a cached rendering of `ids` needs to be true for the viewer, in one statement: render
   * stamps, counters, the viewer's flags, polls, whether the viewer has filters (ADR 0047).
   */
  facts(ids: readonly string[], viewerId: string | null): Promise<FactsPage> {
    return readStatusFacts(this.deps.sequelize, ids, viewerId);
  }

  /** The accounts of statuses as their entities show them (a rendered page's stale accounts). */
  accountViews(ids: readonly string[]): Promise<Map<string, SerializableAccount>> {
    return loadAccounts(this.deps, ids);
  }

  /** One status as the viewer sees it. Errors: NotFound. */
  async view(id: string, viewerId: string | null): Promise<StatusView> {
    const view = (await this.views([id], viewerId)).get(id);
    if (!view) throw new NotFound(RECORD_NOT_FOUND);
    return view;
  }

  /**
   * POST /api/v1/statuses. Errors: BadInput (blank, too long, media refused), NotFound (a parent the
   * author may not see). An Idempotency-Key already used within the hour answers its status.
   */
  async create(author: Actor, input: NewStatus): Promise<string> {
    const { sequelize } = this.deps;
    if (input.idempotencyKey !== undefined) {
      const existing = await this.idempotentStatus(author.id, input.idempotencyKey);
      if (existing) return existing;
    }
    const { text, spoilerText, mediaIds, parent } = await this.checkNew(author, input);
    const visibility = input.visibility ?? (await this.defaultVisibility(author.id));
    const language = input.language ?? detectLanguage(text);
    const rendered = await this.render(text);

    // One statement for the row, its id, a new conversation (a reply joins its parent's) and the
    // author's own home feed (followers' feeds are the job's): the posting request's round trips.
    const conversationId = parent?.conversationId ?? null;
    const insertRow = async (transaction: Transaction | undefined): Promise<string> => {
      const [{ id } = { id: '' }] = await sequelize.query<{ id: string }>(
        `WITH ${conversationId === null ? 'c AS (INSERT INTO conversations DEFAULT VALUES RETURNING id),' : ''}
                n AS (SELECT statuses_next_id() AS id),
                s AS (
                  INSERT INTO statuses (id, uri, url, account_id, local, text, content, spoiler_text, sensitive,
                                        visibility, language, in_reply_to_id, in_reply_to_account_id,
                                        conversation_id, application_id, has_media)
                  SELECT n.id, $1::text || n.id, $2::text || n.id, $3, true, $4, $5, $6, $7, $8, $9, $10, $11,
                         coalesce($12::bigint${conversationId === null ? ', (SELECT id FROM c)' : ''}), $13, $14
                    FROM n
                  RETURNING id, account_id),
                h AS (INSERT INTO home_feed (account_id, status_id) SELECT account_id, id FROM s)
           SELECT id::text AS id FROM s`,
        {
          bind: [
            `${author.uri}/statuses/`,
            `${this.deps.publicUrl}/@${author.username}/`,
            author.id,
            text,
            rendered.html,
            spoilerText,
            input.sensitive ?? false,
            visibility,
            language,
            parent?.id ?? null,
            parent?.accountId ?? null,
            conversationId,
            input.applicationId,
            mediaIds.length > 0,
          ],
          type: QueryTypes.SELECT,
          ...(transaction ? { transaction } : {}),
        },
      );
      return id;
    };
    // A status with nothing beside its row (no media, poll, mentions, tags or Idempotency-Key) is
    // that one statement, atomic by itself: no BEGIN and COMMIT round trips, and the author's row
    // (its statuses_count) is locked for the statement only, not until a COMMIT comes back (ADR 0055).
    const alone =
      mediaIds.length === 0 &&
      !input.poll &&
      rendered.mentionIds.length === 0 &&
      rendered.tags.length === 0 &&
      input.idempotencyKey === undefined;

    try {
      const created = alone
        ? await insertRow(undefined)
        : await sequelize.transaction(async (transaction) => {
            const id = await insertRow(transaction);
            await this.attachMedia(id, author.id, mediaIds, transaction, input.scheduledStatusId);
            if (input.poll) await this.deps.polls.insert(id, author.id, input.poll, transaction);
            await saveStatusEntities(
              this.deps.sequelize,
              id,
              rendered.mentionIds,
              rendered.tags,
              transaction,
            );
            if (input.idempotencyKey !== undefined) {
              await sequelize.query(
                `INSERT INTO status_idempotency_keys (account_id, key, status_id) VALUES ($1, $2, $3)
             ON CONFLICT (account_id, key) DO UPDATE SET status_id = EXCLUDED.status_id, created_at = now()
             WHERE status_idempotency_keys.created_at < now() - make_interval(secs => ${IDEMPOTENCY_SECONDS})`,
                { bind: [author.id, input.idempotencyKey, id], transaction },
              );
              // A twin request committed first with this key: answer its status, keep nothing of ours.
              const winner = await this.idempotentStatus(author.id, input.idempotencyKey, transaction);
              if (winner !== null && winner !== id) throw new IdempotentTwin(winner);
            }
            return id;
          });
      // After the commit, so the jobs find the status.
      await this.fanOutLater(created);
      if (input.poll) await this.deps.polls.scheduleClose(created);
      return created;
    } catch (error) {
      if (error instanceof IdempotentTwin) return error.statusId;
      throw error;
    }
  }

  /**
   * The checks of a new status that need no write (text, media, poll, the parent): what POST
   * /api/v1/statuses with `scheduled_at` runs before it keeps the status for later. Errors: BadInput,
   * NotFound (a parent the author may not see).
   */
  async checkNew(
    author: Actor,
    input: NewStatus,
  ): Promise<{ text: string; spoilerText: string; mediaIds: string[]; parent: StatusRow | null }> {
    const text = input.text ?? '';
    const spoilerText = input.spoilerText ?? '';
    const mediaIds = [...new Set(input.mediaIds)];
    this.checkText(text, spoilerText, mediaIds.length);
    if (mediaIds.length > this.deps.limits.maxMediaAttachments) {
      throw new BadInput(MESSAGES.tooManyMedia(this.deps.limits.maxMediaAttachments));
    }
    if (input.poll) this.deps.polls.check(input.poll, mediaIds.length, this.deps.limits.maxMediaAttachments);
    const parent =
      input.inReplyToId === undefined ? null : await this.visibleRow(input.inReplyToId, author.id);
    if (parent?.reblogOfId) throw new NotFound(RECORD_NOT_FOUND);
    return { text, spoilerText, mediaIds, parent };
  }

  private async fanOutLater(statusId: string): Promise<void> {
    await this.deps.queue.send(FAN_OUT_JOB, { statusId });
  }

  /** DELETE /api/v1/statuses/:id: the author's own; answered with its source text. Errors: NotFound. */
  async remove(author: Actor, id: string): Promise<StatusView> {
    const row = await this.ownRow(author.id, id);
    const { sequelize } = this.deps;
    const reblogs = await sequelize.transaction(async (transaction) => {
      await sequelize.query('UPDATE statuses SET deleted_at = now(), updated_at = now() WHERE id = $1', {
        bind: [row.id],
        transaction,
      });
      // Its reblogs go with it; the media stay the author's, free to attach again (delete and redraft).
      const gone = await sequelize.query<{ id: string; accountId: string }>(
        'DELETE FROM statuses WHERE reblog_of_id = $1 RETURNING id::text AS id, account_id::text AS "accountId"',
        { bind: [row.id], type: QueryTypes.SELECT, transaction },
      );
      await sequelize.query('DELETE FROM home_feed WHERE status_id = $1', { bind: [row.id], transaction });
      await sequelize.query('DELETE FROM status_pins WHERE status_id = $1', { bind: [row.id], transaction });
      return gone;
    });
    const view = await this.view(row.id, author.id);
    await sequelize.query(
      'UPDATE media_attachments SET status_id = NULL, updated_at = now() WHERE status_id = $1',
      {
        bind: [row.id],
      },
    );
    for (const listener of this.listeners) {
      await listener.removed?.(
        row.id,
        author.id,
        reblogs.map((reblog) => reblog.accountId),
      );
      for (const reblog of reblogs) await listener.removed?.(reblog.id, reblog.accountId);
    }
    return view;
  }

  /** PUT /api/v1/statuses/:id: a new version of the author's own status. Errors: NotFound, BadInput. */
  async edit(author: Actor, id: string, input: StatusEdit): Promise<void> {
    const row = await this.ownRow(author.id, id);
    if (row.reblogOfId !== null) throw new NotFound(RECORD_NOT_FOUND);
    const { sequelize } = this.deps;
    const text = input.text ?? row.text;
    const spoilerText = input.spoilerText ?? row.spoilerText;
    const currentMedia = await this.mediaIdsOf(row.id);
    const mediaIds = input.mediaIds === undefined ? currentMedia : [...new Set(input.mediaIds)];
    this.checkText(text, spoilerText, mediaIds.length);
    if (mediaIds.length > this.deps.limits.maxMediaAttachments) {
      throw new BadInput(MESSAGES.tooManyMedia(this.deps.limits.maxMediaAttachments));
    }
    if (input.poll) this.deps.polls.check(input.poll, mediaIds.length, this.deps.limits.maxMediaAttachments);
    const rendered = await this.render(text);
    const language = input.language ?? (input.text === undefined ? row.language : detectLanguage(text));
    const sensitive = input.sensitive ?? row.sensitive;
    await sequelize.transaction(async (transaction) => {
      await sequelize.query('SELECT 1 FROM statuses WHERE id = $1 FOR UPDATE', {
        bind: [row.id],
        transaction,
      });
      const versions = await sequelize.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM status_edits WHERE status_id = $1',
        { bind: [row.id], type: QueryTypes.SELECT, transaction },
      );
      // The first edit keeps the original as version one.
      if ((versions[0]?.n ?? 0) === 0) {
        await saveStatusVersion(this.deps.sequelize, row, currentMedia, row.createdAt, transaction);
      }
      await sequelize.query(
        `UPDATE statuses SET text = $2, content = $3, spoiler_text = $4, sensitive = $5, language = $6,
                has_media = $7, edited_at = now(), updated_at = now() WHERE id = $1`,
        {
          bind: [row.id, text, rendered.html, spoilerText, sensitive, language, mediaIds.length > 0],
          transaction,
        },
      );
      const removed = currentMedia.filter((mediaId) => !mediaIds.includes(mediaId));
      if (removed.length > 0) {
        await sequelize.query(
          'UPDATE media_attachments SET status_id = NULL WHERE status_id = $1 AND id = ANY($2::bigint[])',
          { bind: [row.id, removed], transaction },
        );
      }
      await this.attachMedia(
        row.id,
        author.id,
        mediaIds.filter((mediaId) => !currentMedia.includes(mediaId)),
        transaction,
      );
      await sequelize.query('DELETE FROM mentions WHERE status_id = $1', { bind: [row.id], transaction });
      await sequelize.query('DELETE FROM statuses_tags WHERE status_id = $1', {
        bind: [row.id],
        transaction,
      });
      await saveStatusEntities(this.deps.sequelize, row.id, rendered.mentionIds, rendered.tags, transaction);
      await this.deps.polls.replace(row.id, author.id, input.poll ?? null, transaction);
      const edited = { ...row, text, content: rendered.html, spoilerText, sensitive, language };
      await saveStatusVersion(this.deps.sequelize, edited, mediaIds, new Date(), transaction);
    });
    if (input.poll) await this.deps.polls.scheduleClose(row.id);
    for (const listener of this.listeners) await listener.edited?.(row.id);
  }

  /** GET /history: every version, oldest first (one version for a status never edited). */
  async history(id: string, viewerId: string | null): Promise<StatusVersion[]> {
    const view = await this.visibleView(id, viewerId);
    const edits = await this.deps.sequelize.query<{
      content: string;
      spoilerText: string;
      sensitive: boolean;
      createdAt: Date;
      mediaIds: string[];
    }>(
      `SELECT content, spoiler_text AS "spoilerText", sensitive, created_at AS "createdAt",
              media_attachment_ids::text[] AS "mediaIds"
         FROM status_edits WHERE status_id = $1 ORDER BY id`,
      { bind: [view.row.id], type: QueryTypes.SELECT },
    );
    if (edits.length === 0) {
      return [
        {
          account: view.account,
          content: view.row.content,
          spoilerText: view.row.spoilerText,
          sensitive: view.row.sensitive,
          createdAt: view.row.createdAt,
          media: view.media,
        },
      ];
    }
    const mediaById = new Map(view.media.map((media) => [media.id, media]));
    return edits.map((edit) => ({
      account: view.account,
      content: edit.content,
      spoilerText: edit.spoilerText,
      sensitive: edit.sensitive,
      createdAt: new Date(edit.createdAt),
      media: edit.mediaIds.flatMap((mediaId) => mediaById.get(mediaId) ?? []),
    }));
  }

  /** GET /source: the author's text, for editing. Errors: NotFound. */
  async source(id: string, viewerId: string | null): Promise<StatusRow> {
    return this.visibleRow(id, viewerId);
  }

  /** GET /context: visible ancestors (oldest first) and descendants (in thread order). */
  async context(
    id: string,
    viewerId: string | null,
  ): Promise<{ ancestors: string[]; descendants: string[] }> {
    const row = await this.visibleRow(id, viewerId);
    const { sequelize } = this.deps;
    const visible = visibleTo('$2::bigint');
    const ancestors = await sequelize.query<{ id: string }>(
      `WITH RECURSIVE up(id, parent, depth) AS (
         SELECT s.id, s.in_reply_to_id, 0 FROM statuses s WHERE s.id = $1
         UNION ALL
         SELECT s.id, s.in_reply_to_id, up.depth + 1 FROM statuses s JOIN up ON s.id = up.parent
          WHERE up.depth < ${ANCESTORS_LIMIT})
       SELECT s.id::text AS id FROM up JOIN statuses s ON s.id = up.id
        WHERE up.depth > 0 AND s.deleted_at IS NULL AND ${visible}
        ORDER BY up.depth DESC`,
      { bind: [row.id, viewerId], type: QueryTypes.SELECT },
    );
    const limit = viewerId === null ? DESCENDANTS_LIMIT : DESCENDANTS_LIMIT_SIGNED_IN;
    const descendants = await sequelize.query<{ id: string }>(
      `WITH RECURSIVE down(id, path) AS (
         SELECT s.id, ARRAY[s.id] FROM statuses s WHERE s.in_reply_to_id = $1 AND s.deleted_at IS NULL
         UNION ALL
         SELECT s.id, down.path || s.id FROM statuses s JOIN down ON s.in_reply_to_id = down.id
          WHERE s.deleted_at IS NULL AND cardinality(down.path) < 256)
       SELECT s.id::text AS id FROM down JOIN statuses s ON s.id = down.id
        WHERE ${visible}
        ORDER BY down.path LIMIT ${limit}`,
      { bind: [row.id, viewerId], type: QueryTypes.SELECT },
    );
    return { ancestors: ancestors.map((r) => r.id), descendants: descendants.map((r) => r.id) };
  }

  /**
   * POST /reblog: the viewer's reblog of the original (a reblog of a reblog reblogs the original);
   * the existing one when already reblogged. Private and direct statuses are refused with a 422, as
   * the seed says. Errors: NotFound, BadInput.
   */
  async reblog(account: Actor, id: string, visibility: Visibility | undefined): Promise<string> {
    let target = await this.visibleRow(id, account.id);
    if (target.reblogOfId !== null) target = await this.visibleRow(target.reblogOfId, account.id);
    if (target.visibility === 'private' || target.visibility === 'direct') {
      throw new BadInput(MESSAGES.reblogPrivate);
    }
    const existing = await this.reblogOf(account.id, target.id);
    if (existing) return existing;
    const { sequelize } = this.deps;
    const chosen = visibility === 'direct' || visibility === undefined ? 'public' : visibility;
    try {
      const created = await sequelize.transaction(async (transaction) => {
        const [{ id: reblogId } = { id: '' }] = await sequelize.query<{ id: string }>(
          'SELECT statuses_next_id()::text AS id',
          { type: QueryTypes.SELECT, transaction },
        );
        await sequelize.query(
          `INSERT INTO statuses (id, uri, account_id, local, visibility, reblog_of_id)
           VALUES ($1, $2, $3, true, $4, $5)`,
          {
            bind: [reblogId, `${account.uri}/statuses/${reblogId}/activity`, account.id, chosen, target.id],
            transaction,
          },
        );
        await sequelize.query('INSERT INTO home_feed (account_id, status_id) VALUES ($1, $2)', {
          bind: [account.id, reblogId],
          transaction,
        });
        return reblogId;
      });
      await this.fanOutLater(created);
      return created;
    } catch (error) {
      // A concurrent reblog by the same account won: answer it.
      if (error instanceof UniqueConstraintError) {
        const winner = await this.reblogOf(account.id, target.id);
        if (winner) return winner;
      }
      throw error;
    }
  }

  /** POST /unreblog: removes the viewer's reblog; answers the original. Errors: NotFound. */
  async unreblog(account: Actor, id: string): Promise<string> {
    let target = await this.visibleRow(id, account.id);
    if (target.reblogOfId !== null) target = await this.visibleRow(target.reblogOfId, account.id);
    const gone = await this.deps.sequelize.query<{ id: string }>(
      'DELETE FROM statuses WHERE account_id = $1 AND reblog_of_id = $2 RETURNING id::text AS id',
      { bind: [account.id, target.id], type: QueryTypes.SELECT },
    );
    for (const listener of this.listeners) {
      await listener.unreblogged?.(
        account.id,
        target,
        gone.map((reblog) => reblog.id),
      );
      for (const reblog of gone) await listener.removed?.(reblog.id, account.id);
    }
    return target.id;
  }

  /** POST /favourite (concurrent calls count once), /unfavourite; answer the status. Errors: NotFound. */
  async favourite(account: Actor, id: string, on: boolean): Promise<string> {
    const row = await this.visibleRow(id, account.id);
    await this.mark('favourites', account, row.id, on, row);
    for (const listener of this.listeners) await listener.favourited?.(account.id, row, on);
    return row.id;
  }

  /** POST /bookmark, /unbookmark. Errors: NotFound. */
  async bookmark(account: Actor, id: string, on: boolean): Promise<string> {
    return this.mark('bookmarks', account, id, on);
  }

  /** POST /pin, /unpin: the author's own public, unlisted or private statuses, up to the limit. */
  async pin(account: Actor, id: string, on: boolean): Promise<string> {
    const row = await this.visibleRow(id, account.id);
    if (!on) {
      await this.deps.sequelize.query('DELETE FROM status_pins WHERE account_id = $1 AND status_id = $2', {
        bind: [account.id, row.id],
      });
      return row.id;
    }
    if (row.accountId !== account.id) throw new BadInput(MESSAGES.pinOwnership);
    if (row.reblogOfId !== null) throw new BadInput(MESSAGES.pinReblog);
    if (row.visibility === 'direct') throw new BadInput(MESSAGES.pinDirect);
    const { sequelize } = this.deps;
    await sequelize.transaction(async (transaction) => {
      // One pinning at a time per account, so the limit holds under concurrent calls.
      await sequelize.query('SELECT pg_advisory_xact_lock(hashtext($1))', {
        bind: [`status_pins:${account.id}`],
        transaction,
      });
      const [{ n } = { n: 0 }] = await sequelize.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM status_pins WHERE account_id = $1 AND status_id <> $2',
        { bind: [account.id, row.id], type: QueryTypes.SELECT, transaction },
      );
      if (n >= this.deps.limits.maxPinnedStatuses) throw new BadInput(MESSAGES.pinLimit);
      await sequelize.query(
        'INSERT INTO status_pins (account_id, status_id) VALUES ($1, $2) ON CONFLICT DO NOTHING',
        { bind: [account.id, row.id], transaction },
      );
    });
    return row.id;
  }

  /** POST /mute, /unmute: the viewer's mute of the status's conversation. Errors: NotFound, BadInput. */
  async muteConversation(account: Actor, id: string, on: boolean): Promise<string> {
    const row = await this.visibleRow(id, account.id);
    if (row.conversationId === null) throw new BadInput(MESSAGES.noConversation);
    await this.deps.sequelize.query(
      on
        ? 'INSERT INTO conversation_mutes (account_id, conversation_id) VALUES ($1, $2) ON CONFLICT DO NOTHING'
        : 'DELETE FROM conversation_mutes WHERE account_id = $1 AND conversation_id = $2',
      { bind: [account.id, row.conversationId] },
    );
    return row.id;
  }

  /**
   * GET /reblogged_by and /favourited_by: account ids, newest first, paged by the internal id of the
   * reblog or favourite (given back as `cursor`). Errors: NotFound.
   */
  async interactors(
    kind: 'reblogs' | 'favourites',
    id: string,
    viewerId: string | null,
    page: PageRequest,
  ): Promise<Array<{ accountId: string; cursor: string }>> {
    const row = await this.visibleRow(id, viewerId);
    const source =
      kind === 'reblogs'
        ? 'SELECT id, account_id FROM statuses WHERE reblog_of_id = $1 AND deleted_at IS NULL'
        : 'SELECT id, account_id FROM favourites WHERE status_id = $1';
    const bind: unknown[] = [row.id];
    const { where, tail } = pageSql('x.id', page, bind);
    const rows = await this.deps.sequelize.query<{ accountId: string; cursor: string }>(
      `SELECT x.account_id::text AS "accountId", x.id::text AS cursor FROM (${source}) x
        WHERE true${where}${tail}`,
      { bind, type: QueryTypes.SELECT },
    );
    return pageRows(rows, page).items;
  }

  /** A status the viewer may see, as a row. Errors: NotFound (unknown, not a number, deleted, hidden). */
  async visibleRow(id: string, viewerId: string | null): Promise<StatusRow> {
    if (!isRowId(id)) throw new NotFound(RECORD_NOT_FOUND);
    const [row] = await this.deps.sequelize.query<StatusRow>(
      `SELECT ${STATUS_COLUMNS} FROM statuses s
        WHERE s.id = $1 AND s.deleted_at IS NULL AND ${visibleTo('$2::bigint')}`,
      { bind: [id, viewerId], type: QueryTypes.SELECT },
    );
    if (!row) throw new NotFound(RECORD_NOT_FOUND);
    return row;
  }

  /** The view of a status the viewer may see. Errors: NotFound. */
  async visibleView(id: string, viewerId: string | null): Promise<StatusView> {
    const row = await this.visibleRow(id, viewerId);
    return this.view(row.id, viewerId);
  }

  /** Housekeeping: drops Idempotency-Key answers older than their hour; returns how many went. */
  async purgeIdempotencyKeys(): Promise<number> {
    const rows = await this.deps.sequelize.query(
      `DELETE FROM status_idempotency_keys
        WHERE created_at < now() - make_interval(secs => ${IDEMPOTENCY_SECONDS}) RETURNING 1`,
      { type: QueryTypes.SELECT },
    );
    return rows.length;
  }

  /** The fan-out and home-merge workers (a no-op on role web); call before the queue starts. */
  async registerWorker(): Promise<void> {
    // As many at once as deliveries had: federation's listener makes a status's first delivery
    // attempt inside this job (ADR 0055).
    await this.deps.queue.work<{ statusId: string }>(
      FAN_OUT_JOB,
      async (job) => {
        const { status } = await this.writeFeeds(job.data.statusId);
        await this.tellDistributed(job.data.statusId, status);
      },
      { concurrency: FAN_OUT_CONCURRENCY },
    );
    await this.deps.queue.work<{ followerId: string; targetId: string; merge: boolean }>(
      HOME_MERGE_JOB,
      async (job) => {
        const { followerId, targetId, merge } = job.data;
        if (merge) await this.mergeIntoHome(followerId, targetId);
        else await this.unmergeFromHome(followerId, targetId);
      },
    );
  }

  /**
   * The listeners of a new status or reblog, all at once: none waits for another (federation's
   * deliveries do not queue behind notifications). A failure fails the job, which runs them again.
   */
  private async tellDistributed(statusId: string, status: DistributedStatus | undefined): Promise<void> {
    const told = await Promise.allSettled(
      this.listeners.map((listener) => listener.distributed?.(statusId, status)),
    );
    const failed = told.find((result): result is PromiseRejectedResult => result.status === 'rejected');
    if (failed) throw failed.reason;
  }

  /**
   * Queues the home-feed change of a follow (`merge`) or an unfollow: what the follow and unfollow
   * paths call once their change is committed.
   */
  async queueHomeMerge(followerId: string, targetId: string, merge: boolean): Promise<void> {
    await this.deps.queue.send(HOME_MERGE_JOB, { followerId, targetId, merge });
  }

  /** A follow: the target's latest statuses the follower may see join the follower's home feed. */
  async mergeIntoHome(followerId: string, targetId: string): Promise<number> {
    const rows = await this.deps.sequelize.query(
      `INSERT INTO home_feed (account_id, status_id)
       SELECT $1, s.id FROM statuses s
        WHERE s.account_id = $2 AND s.deleted_at IS NULL AND ${visibleTo('$1::bigint')}
          AND EXISTS (SELECT 1 FROM actors a WHERE a.id = $1 AND a.domain IS NULL)
        ORDER BY s.id DESC LIMIT ${MERGE_LIMIT}
       ON CONFLICT DO NOTHING RETURNING 1`,
      { bind: [followerId, targetId], type: QueryTypes.SELECT },
    );
    return rows.length;
  }

  /** An unfollow: the former target's statuses and reblogs leave the follower's home feed. */
  async unmergeFromHome(followerId: string, targetId: string): Promise<number> {
    const rows = await this.deps.sequelize.query(
      `DELETE FROM home_feed h USING statuses s
        WHERE h.account_id = $1 AND s.id = h.status_id AND s.account_id = $2 RETURNING 1`,
      { bind: [followerId, targetId], type: QueryTypes.SELECT },
    );
    return rows.length;
  }

  /** GET /api/v1/statuses?id[]=: the ones the viewer may see, in the order asked. */
  async visibleIds(ids: string[], viewerId: string | null): Promise<string[]> {
    const valid = [...new Set(ids.filter((id) => isRowId(id)))];
    if (valid.length === 0) return [];
    const rows = await this.deps.sequelize.query<{ id: string }>(
      `SELECT s.id::text AS id FROM statuses s
        WHERE s.id = ANY($1::bigint[]) AND s.deleted_at IS NULL AND ${visibleTo('$2::bigint')}`,
      { bind: [valid, viewerId], type: QueryTypes.SELECT },
    );
    const found = new Set(rows.map((row) => row.id));
    return valid.filter((id) => found.has(id));
  }

  /**
   * Adds a feed the fan-out job writes beside the home feeds (idempotent, as the job may retry).
   * `when`: the fact of the fan-out's first read without which the writer would write nothing (the
   * author is in a list, the status is direct, has tags); the writer is then not run at all.
   */
  addFeedWriter(writer: (statusId: string) => Promise<unknown>, when?: keyof FeedFacts): void {
    this.feedWriters.push({ writer, ...(when ? { when } : {}) });
  }

  /**
   * Writes a status (or reblog) into the home feeds of the author's local followers who may see it:
   * every follower for public, unlisted and private statuses, only mentioned followers for direct
   * ones. Idempotent, so a retried job writes nothing twice. A large audience is written by a few
   * INSERT … SELECT statements at once, each for a share of the followers (by id), so the feeds are
   * complete sooner (most of the time goes to per-row index and foreign-key work, which one
   * statement does on one core): 10,000 followers in ~130 ms with 4 statements against ~250 ms with one.
   */
  async fanOut(statusId: string): Promise<number> {
    return (await this.writeFeeds(statusId)).count;
  }

  /** The fan-out, and what its first read learnt of the status for the listeners. */
  private async writeFeeds(statusId: string): Promise<{ count: number; status?: DistributedStatus }> {
    const { sequelize } = this.deps;
    const [author] = await FAN_OUT_FIRST_READ.rows(sequelize, [statusId]);
    const parts = Math.min(
      FAN_OUT_MAX_STATEMENTS,
      Math.max(1, Math.ceil((author?.followers ?? 0) / FAN_OUT_FOLLOWERS_PER_STATEMENT)),
    );
    // The other feeds' writers (lists, conversations, followed tags) are independent, idempotent
    // statements: they run beside the home inserts, so the feeds are all written one round trip on.
    // A writer whose condition the read found false would write nothing: it is not asked (one round
    // trip fewer each). Without the read (a status gone meanwhile) every writer runs, as before.
    const others = Promise.all(
      this.feedWriters
        .filter(({ when }) => !author || when === undefined || author[when])
        .map(({ writer }) => writer(statusId)),
    );
    const counts = await Promise.all(
      Array.from({ length: parts }, async (_, part) => {
        const [result] = await FAN_OUT_HOME_INSERT.rows(sequelize, [statusId, parts, part]);
        return result?.n ?? 0;
      }),
    );
    await others;
    const count = counts.reduce((sum, n) => sum + n, 0);
    return author ? { count, status: { content: author.content ?? '', reblog: author.reblog } } : { count };
  }

  private async mark(
    table: 'favourites' | 'bookmarks',
    account: Actor,
    id: string,
    on: boolean,
    visible?: StatusRow,
  ): Promise<string> {
    const row = visible ?? (await this.visibleRow(id, account.id));
    await this.deps.sequelize.query(
      on
        ? `INSERT INTO ${table} (account_id, status_id) VALUES ($1, $2) ON CONFLICT DO NOTHING`
        : `DELETE FROM ${table} WHERE account_id = $1 AND status_id = $2`,
      { bind: [account.id, row.id] },
    );
    return row.id;
  }

  private async reblogOf(accountId: string, statusId: string): Promise<string | null> {
    const [row] = await this.deps.sequelize.query<{ id: string }>(
      'SELECT id::text AS id FROM statuses WHERE account_id = $1 AND reblog_of_id = $2 AND deleted_at IS NULL',
      { bind: [accountId, statusId], type: QueryTypes.SELECT },
    );
    return row?.id ?? null;
  }

  private async ownRow(accountId: string, id: string): Promise<StatusRow> {
    if (!isRowId(id)) throw new NotFound(RECORD_NOT_FOUND);
    const [row] = await this.deps.sequelize.query<StatusRow>(
      `SELECT ${STATUS_COLUMNS} FROM statuses s WHERE s.id = $1 AND s.account_id = $2 AND s.deleted_at IS NULL`,
      { bind: [id, accountId], type: QueryTypes.SELECT },
    );
    if (!row) throw new NotFound(RECORD_NOT_FOUND);
    return row;
  }

  private checkText(text: string, spoilerText: string, mediaCount: number): void {
    if (text.trim() === '' && mediaCount === 0) throw new BadInput(MESSAGES.blank);
    const { maxCharacters, charactersReservedPerUrl } = this.deps.limits;
    if (statusLength(text, charactersReservedPerUrl) + characterCount(spoilerText) > maxCharacters) {
      throw new BadInput(MESSAGES.tooLong(maxCharacters));
    }
  }

  private async idempotentStatus(
    accountId: string,
    key: string,
    transaction?: Transaction,
  ): Promise<string | null> {
    const [row] = await this.deps.sequelize.query<{ id: string }>(
      `SELECT k.status_id::text AS id FROM status_idempotency_keys k JOIN statuses s ON s.id = k.status_id
        WHERE k.account_id = $1 AND k.key = $2 AND s.deleted_at IS NULL
          AND k.created_at > now() - make_interval(secs => ${IDEMPOTENCY_SECONDS})`,
      { bind: [accountId, key], type: QueryTypes.SELECT, ...(transaction ? { transaction } : {}) },
    );
    return row?.id ?? null;
  }

  private async defaultVisibility(accountId: string): Promise<Visibility> {
    const [row] = await this.deps.sequelize.query<{ privacy: Visibility }>(
      'SELECT privacy FROM account_settings WHERE actor_id = $1',
      { bind: [accountId], type: QueryTypes.SELECT },
    );
    return row?.privacy ?? 'public';
  }

  /** The text as HTML, with the accounts its mentions resolve to (local, or remote ones already known). */
  private render(text: string): Promise<LinkedText> {
    return renderLinkedText(text, this.deps);
  }

  /** Attaches the author's own finished, unattached uploads. Errors: BadInput naming what was refused. */
  private async attachMedia(
    statusId: string,
    accountId: string,
    ids: string[],
    transaction: Transaction,
    scheduledStatusId?: string,
  ): Promise<void> {
    if (ids.length === 0) return;
    const { sequelize } = this.deps;
    await this.attachableMedia(accountId, ids, scheduledStatusId ?? null, transaction);
    await sequelize.query(
      `UPDATE media_attachments SET status_id = $1, scheduled_status_id = NULL, updated_at = now()
        WHERE id = ANY($2::bigint[])`,
      { bind: [statusId, ids], transaction },
    );
  }

  /**
   * The author's own finished uploads, not attached to a status nor held by a scheduled status (but
   * `scheduledStatusId`'s own), locked when in a transaction. Errors: BadInput naming what was refused.
   */
  async attachableMedia(
    accountId: string,
    ids: string[],
    scheduledStatusId: string | null,
    transaction?: Transaction,
  ): Promise<void> {
    if (ids.length === 0) return;
    const { sequelize } = this.deps;
    const valid = ids.filter((id) => isRowId(id));
    const rows = await sequelize.query<{ id: string; type: string; processing: string }>(
      `SELECT id::text AS id, type, processing FROM media_attachments
        WHERE id = ANY($1::bigint[]) AND account_id = $2 AND status_id IS NULL
          AND (scheduled_status_id IS NULL OR scheduled_status_id = $3::bigint)
          ${transaction ? 'FOR UPDATE' : ''}`,
      {
        bind: [valid, accountId, scheduledStatusId],
        type: QueryTypes.SELECT,
        ...(transaction ? { transaction } : {}),
      },
    );
    const found = new Set(rows.map((row) => row.id));
    const missing = ids.filter((id) => !found.has(id));
    if (missing.length > 0) throw new BadInput(MESSAGES.mediaNotFound(missing));
    if (rows.some((row) => row.processing !== 'complete')) throw new BadInput(MESSAGES.notReady);
    const moving = rows.some((row) => row.type !== 'image');
    if (moving && rows.length > 1) throw new BadInput(MESSAGES.imagesAndVideo);
  }

  private async mediaIdsOf(statusId: string): Promise<string[]> {
    const rows = await this.deps.sequelize.query<{ id: string }>(
      'SELECT id::text AS id FROM media_attachments WHERE status_id = $1 ORDER BY id',
      { bind: [statusId], type: QueryTypes.SELECT },
    );
    return rows.map((row) => row.id);
  }
}

/** Thrown inside the transaction when a concurrent request with the same Idempotency-Key won. */
class IdempotentTwin extends Error {
  constructor(readonly statusId: string) {
    super('idempotent twin');
  }
}

/** The language of a text by tinyld (ISO 639-1), or null when it cannot tell (short texts). */
export function detectLanguage(text: string): string | null {
  const plain = text
    .replace(/https?:\/\/\S+/g, ' ')
    .replace(/[@#][\p{L}\p{N}_.@-]+/gu, ' ')
    .trim();
  if ([...plain].length < 12) return null;
  // Only a confident guess: on short or mixed texts tinyld's best is often a wild one.
  const [best] = detectAll(plain);
  return best && best.accuracy >= MIN_LANGUAGE_ACCURACY ? best.lang : null;
}
