import { BadInput, NotFound, type JobQueue, type Logger } from '@agora/core';
import { isRowId } from '@agora/db';
import { QueryTypes, UniqueConstraintError, type Sequelize, type Transaction } from 'sequelize';
import { pageRows, pageSql, type Page, type PageRequest } from '../../http/link-pagination.js';
import { visibleTo } from '../statuses/status.model.js';

/** Adds a new member's recent statuses to a list's feed, or takes a former member's out. */
export const LIST_MERGE_JOB = 'microblog.lists.merge';
/** How many of a new member's latest statuses join the list's feed (as the home merge). */
const MERGE_LIMIT = 400;
/** The reference's limit of lists per account. */
export const MAX_LISTS = 50;
const RECORD_NOT_FOUND = 'Record not found';

export const REPLIES_POLICIES = ['followed', 'list', 'none'] as const;
export type RepliesPolicy = (typeof REPLIES_POLICIES)[number];

export const LIST_MESSAGES = {
  limit: 'Validation failed: You have reached the maximum number of lists',
  taken: 'Validation failed: Account has already been taken',
} as const;

export interface ListView {
  id: string;
  title: string;
  repliesPolicy: RepliesPolicy;
  exclusive: boolean;
}

export interface ListInput {
  title?: string | undefined;
  repliesPolicy?: RepliesPolicy | undefined;
  exclusive?: boolean | undefined;
}

const LIST_COLUMNS = `l.id::text AS id, l.title, l.replies_policy AS "repliesPolicy", l.exclusive`;

/**
 * SQL true when the list `l`'s feed takes the status `s`: statuses its owner may see (never direct
 * ones), and replies to others only as `replies_policy` says (to the owner always; `followed`: to
 * accounts the owner follows; `list`: to the list's members; `none`: no other).
 */
const LIST_TAKES = `s.visibility <> 'direct' AND ${visibleTo('l.account_id')}
  AND (s.in_reply_to_account_id IS NULL OR s.in_reply_to_account_id IN (s.account_id, l.account_id)
       OR (l.replies_policy = 'followed' AND EXISTS (
             SELECT 1 FROM follows f2 WHERE f2.actor_id = l.account_id
                AND f2.target_actor_id = s.in_reply_to_account_id AND f2.accepted_at IS NOT NULL))
       OR (l.replies_policy = 'list' AND EXISTS (
             SELECT 1 FROM list_accounts la2 WHERE la2.list_id = l.id AND la2.account_id = s.in_reply_to_account_id)))`;

/**
 * Lists of local accounts: CRUD, members (accounts the owner follows), and each list's feed,
 * written on post by the statuses fan-out job (`fanOut`, registered with the statuses service),
 * back-filled when a member joins and emptied of a member's statuses when it leaves (job
 * `microblog.lists.merge`); an unfollow takes the account out of the follower's lists.
 */
export class ListService {
  constructor(private readonly deps: { sequelize: Sequelize; queue: JobQueue; logger: Logger }) {}

  /** GET /api/v1/lists: the owner's lists, oldest first. */
  all(ownerId: string): Promise<ListView[]> {
    return this.deps.sequelize.query<ListView>(
      `SELECT ${LIST_COLUMNS} FROM lists l WHERE l.account_id = $1 ORDER BY l.id`,
      { bind: [ownerId], type: QueryTypes.SELECT },
    );
  }

  /** One of the owner's lists; another's is "not found" as an unknown one. Errors: NotFound. */
  async get(ownerId: string, id: string): Promise<ListView> {
    if (!isRowId(id)) throw new NotFound(RECORD_NOT_FOUND);
    const [row] = await this.deps.sequelize.query<ListView>(
      `SELECT ${LIST_COLUMNS} FROM lists l WHERE l.id = $1 AND l.account_id = $2`,
      { bind: [id, ownerId], type: QueryTypes.SELECT },
    );
    if (!row) throw new NotFound(RECORD_NOT_FOUND);
    return row;
  }

  /** POST /api/v1/lists. Errors: BadInput (at the limit; the route checks the title). */
  async create(ownerId: string, input: ListInput & { title: string }): Promise<ListView> {
    const { sequelize } = this.deps;
    const id = await sequelize.transaction(async (transaction) => {
      await sequelize.query("SELECT pg_advisory_xact_lock(hashtextextended('lists:' || $1::text, 0))", {
        bind: [ownerId],
        transaction,
      });
      const [count] = await sequelize.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM lists WHERE account_id = $1',
        { bind: [ownerId], type: QueryTypes.SELECT, transaction },
      );
      if ((count?.n ?? 0) >= MAX_LISTS) throw new BadInput(LIST_MESSAGES.limit);
      const [row] = await sequelize.query<{ id: string }>(
        `INSERT INTO lists (account_id, title, replies_policy, exclusive) VALUES ($1, $2, $3, $4)
         RETURNING id::text AS id`,
        {
          bind: [ownerId, input.title, input.repliesPolicy ?? 'list', input.exclusive ?? false],
          type: QueryTypes.SELECT,
          transaction,
        },
      );
      return row!.id;
    });
    return this.get(ownerId, id);
  }

  /** PUT /api/v1/lists/:id: what is given changes. Errors: NotFound. */
  async update(ownerId: string, id: string, input: ListInput): Promise<ListView> {
    const list = await this.get(ownerId, id);
    await this.deps.sequelize.query(
      `UPDATE lists SET title = coalesce($2, title), replies_policy = coalesce($3, replies_policy),
              exclusive = coalesce($4, exclusive), updated_at = now() WHERE id = $1`,
      { bind: [list.id, input.title ?? null, input.repliesPolicy ?? null, input.exclusive ?? null] },
    );
    return this.get(ownerId, list.id);
  }

  /** DELETE /api/v1/lists/:id (its members and feed go with it). Errors: NotFound. */
  async remove(ownerId: string, id: string): Promise<void> {
    const list = await this.get(ownerId, id);
    await this.deps.sequelize.query('DELETE FROM lists WHERE id = $1', { bind: [list.id] });
  }

  /**
   * GET /api/v1/lists/:id/accounts: member account ids, paged by membership (`limit: null`: all of
   * them, bounded by the owner's follows). Errors: NotFound.
   */
  async members(
    ownerId: string,
    id: string,
    page: PageRequest | { limit: null },
  ): Promise<Page<{ accountId: string; cursor: string }>> {
    const list = await this.get(ownerId, id);
    if (page.limit === null) {
      const items = await this.deps.sequelize.query<{ accountId: string; cursor: string }>(
        `SELECT la.account_id::text AS "accountId", la.id::text AS cursor FROM list_accounts la
          WHERE la.list_id = $1 ORDER BY la.id DESC`,
        { bind: [list.id], type: QueryTypes.SELECT },
      );
      return { items };
    }
    const bind: unknown[] = [list.id];
    const sql = pageSql('la.id', page, bind);
    const rows = await this.deps.sequelize.query<{ accountId: string; cursor: string }>(
      `SELECT la.account_id::text AS "accountId", la.id::text AS cursor FROM list_accounts la
        WHERE la.list_id = $1${sql.where}${sql.tail}`,
      { bind, type: QueryTypes.SELECT },
    );
    return pageRows(rows, page);
  }

  /**
   * POST /api/v1/lists/:id/accounts: adds accounts the owner follows (or the owner), all or none.
   * Errors: NotFound (the list, an unknown account or one not followed), BadInput (already there).
   */
  async addMembers(ownerId: string, id: string, accountIds: string[]): Promise<void> {
    const list = await this.get(ownerId, id);
    const wanted = [...new Set(accountIds)];
    if (wanted.some((accountId) => !isRowId(accountId))) throw new NotFound(RECORD_NOT_FOUND);
    const { sequelize } = this.deps;
    try {
      await sequelize.transaction(async (transaction) => {
        const allowed = await sequelize.query<{ id: string }>(
          `SELECT a.id::text AS id FROM actors a
            WHERE a.id = ANY($1::bigint[])
              AND (a.id = $2 OR EXISTS (SELECT 1 FROM follows f WHERE f.actor_id = $2
                                           AND f.target_actor_id = a.id AND f.accepted_at IS NOT NULL))`,
          { bind: [wanted, ownerId], type: QueryTypes.SELECT, transaction },
        );
        if (allowed.length !== wanted.length) throw new NotFound(RECORD_NOT_FOUND);
        await sequelize.query(
          'INSERT INTO list_accounts (list_id, account_id) SELECT $1, unnest($2::bigint[])',
          { bind: [list.id, wanted], transaction },
        );
      });
    } catch (error) {
      if (error instanceof UniqueConstraintError) throw new BadInput(LIST_MESSAGES.taken);
      throw error;
    }
    for (const accountId of wanted) {
      await this.deps.queue.send(LIST_MERGE_JOB, { listId: list.id, accountId, merge: true });
    }
  }

  /** DELETE /api/v1/lists/:id/accounts: the accounts leave the list (unknown ones are ignored). */
  async removeMembers(ownerId: string, id: string, accountIds: string[]): Promise<void> {
    const list = await this.get(ownerId, id);
    const ids = [...new Set(accountIds.filter((accountId) => isRowId(accountId)))];
    const removed = await this.deps.sequelize.query<{ accountId: string }>(
      `DELETE FROM list_accounts WHERE list_id = $1 AND account_id = ANY($2::bigint[])
       RETURNING account_id::text AS "accountId"`,
      { bind: [list.id, ids], type: QueryTypes.SELECT },
    );
    for (const { accountId } of removed) {
      await this.deps.queue.send(LIST_MERGE_JOB, { listId: list.id, accountId, merge: false });
    }
  }

  /** GET /api/v1/accounts/:id/lists: the owner's lists that hold the account. */
  listsWith(ownerId: string, accountId: string): Promise<ListView[]> {
    if (!isRowId(accountId)) return Promise.resolve([]);
    return this.deps.sequelize.query<ListView>(
      `SELECT ${LIST_COLUMNS} FROM list_accounts la JOIN lists l ON l.id = la.list_id
        WHERE la.account_id = $2 AND l.account_id = $1 ORDER BY l.id`,
      { bind: [ownerId, accountId], type: QueryTypes.SELECT },
    );
  }

  /**
   * GET /api/v1/timelines/list/:id: a page of the list's feed, newest first, without blocked, muted
   * or domain-blocked authors nor reblogs of follows asked without them (as the home timeline).
   * Errors: NotFound.
   */
  async timeline(ownerId: string, id: string, page: PageRequest): Promise<string[]> {
    const list = await this.get(ownerId, id);
    const bind: unknown[] = [list.id, ownerId];
    const paged = pageSql('lf.status_id', page, bind);
    const rows = await this.deps.sequelize.query<{ cursor: string }>(
      `SELECT lf.status_id::text AS cursor FROM list_feeds lf
         JOIN statuses s ON s.id = lf.status_id AND s.deleted_at IS NULL
         LEFT JOIN statuses r ON r.id = s.reblog_of_id
        WHERE lf.list_id = $1${paged.where}
          AND NOT EXISTS (SELECT 1 FROM blocks b WHERE b.account_id = $2
                           AND b.target_account_id IN (s.account_id, r.account_id))
          AND NOT EXISTS (SELECT 1 FROM mutes m WHERE m.account_id = $2
                           AND m.target_account_id IN (s.account_id, r.account_id)
                           AND (m.expires_at IS NULL OR m.expires_at > now()))
          AND NOT EXISTS (SELECT 1 FROM account_domain_blocks d JOIN actors a ON a.domain = d.domain
                           WHERE d.account_id = $2 AND a.id IN (s.account_id, r.account_id))
          AND (s.reblog_of_id IS NULL OR NOT EXISTS (
                SELECT 1 FROM follows f WHERE f.actor_id = $2 AND f.target_actor_id = s.account_id
                   AND NOT f.show_reblogs))${paged.tail}`,
      { bind, type: QueryTypes.SELECT },
    );
    return pageRows(rows, page).items.map((row) => row.cursor);
  }

  /**
   * The statuses fan-out's list part: a new status (or reblog) joins the feeds of the lists that
   * hold its author and take it. Idempotent.
   */
  async fanOut(statusId: string): Promise<number> {
    const [result] = await this.deps.sequelize.query<{ n: number }>(
      `WITH inserted AS (
         INSERT INTO list_feeds (list_id, status_id)
         SELECT l.id, s.id FROM statuses s
           JOIN list_accounts la ON la.account_id = s.account_id
           JOIN lists l ON l.id = la.list_id
          WHERE s.id = $1 AND s.deleted_at IS NULL AND ${LIST_TAKES}
         ON CONFLICT DO NOTHING RETURNING 1)
       SELECT count(*)::int AS n FROM inserted`,
      { bind: [statusId], type: QueryTypes.SELECT },
    );
    return result?.n ?? 0;
  }

  /** A member joined: its latest statuses the list takes join the feed (while it is a member). */
  async merge(listId: string, accountId: string): Promise<number> {
    const rows = await this.deps.sequelize.query(
      `INSERT INTO list_feeds (list_id, status_id)
       SELECT l.id, s.id FROM lists l JOIN statuses s ON s.account_id = $2 AND s.deleted_at IS NULL
        WHERE l.id = $1 AND ${LIST_TAKES}
          AND EXISTS (SELECT 1 FROM list_accounts la WHERE la.list_id = l.id AND la.account_id = $2)
        ORDER BY s.id DESC LIMIT ${MERGE_LIMIT}
       ON CONFLICT DO NOTHING RETURNING 1`,
      { bind: [listId, accountId], type: QueryTypes.SELECT },
    );
    return rows.length;
  }

  /** A member left: its statuses and reblogs leave the feed (unless it joined again since). */
  async unmerge(listId: string, accountId: string, transaction?: Transaction): Promise<number> {
    const rows = await this.deps.sequelize.query(
      `DELETE FROM list_feeds lf USING statuses s
        WHERE lf.list_id = $1 AND s.id = lf.status_id AND s.account_id = $2
          AND NOT EXISTS (SELECT 1 FROM list_accounts la WHERE la.list_id = $1 AND la.account_id = $2)
        RETURNING 1`,
      { bind: [listId, accountId], type: QueryTypes.SELECT, ...(transaction ? { transaction } : {}) },
    );
    return rows.length;
  }

  /** An accepted follow ended: the former target leaves the follower's lists (as the reference). */
  async followEnded(followerId: string, targetId: string): Promise<void> {
    const removed = await this.deps.sequelize.query<{ listId: string }>(
      `DELETE FROM list_accounts la USING lists l
        WHERE l.id = la.list_id AND l.account_id = $1 AND la.account_id = $2
        RETURNING la.list_id::text AS "listId"`,
      { bind: [followerId, targetId], type: QueryTypes.SELECT },
    );
    for (const { listId } of removed) {
      await this.deps.queue.send(LIST_MERGE_JOB, { listId, accountId: targetId, merge: false });
    }
  }

  /** The merge worker (a no-op on role web); call before the queue starts. */
  async registerWorker(): Promise<void> {
    await this.deps.queue.work<{ listId: string; accountId: string; merge: boolean }>(
      LIST_MERGE_JOB,
      async (job) => {
        const { listId, accountId, merge } = job.data;
        if (merge) await this.merge(listId, accountId);
        else await this.unmerge(listId, accountId);
      },
    );
  }
}
