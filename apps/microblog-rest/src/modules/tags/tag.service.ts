import { NotFound } from '@agora/core';
import { QueryTypes, type Sequelize } from 'sequelize';
import { pageRows, pageSql, type Page, type PageRequest } from '../../http/link-pagination.js';

const RECORD_NOT_FOUND = 'Record not found';
/** A hashtag name as statuses link them (status-text.ts): letters, digits, `_`, at least one non-digit. */
const TAG_NAME = /^[\p{L}\p{N}_]*[\p{L}_][\p{L}\p{N}_]*$/u;
const MAX_TAG_LENGTH = 100;
/** Days of `history` on a Tag (the reference shows a week, newest first). */
const HISTORY_DAYS = 7;

/** One day of a hashtag's use: statuses and distinct accounts that used it (not-shown.md §2.3 Tag). */
export interface TagHistoryDay {
  /** Midnight UTC of the day, as seconds since the epoch. */
  day: number;
  uses: number;
  accounts: number;
}

export interface TagView {
  id: string | null;
  name: string;
  history: TagHistoryDay[];
  /** Whether the viewer follows it; null without a viewer (the field is then left out). */
  following: boolean | null;
}

export interface TagServiceDeps {
  sequelize: Sequelize;
}

/** A hashtag name from a path (`#` and surrounding space dropped); null when no tag could be named so. */
export function tagNameOf(raw: string): string | null {
  const name = raw.trim().replace(/^#/, '');
  return name.length > 0 && name.length <= MAX_TAG_LENGTH && TAG_NAME.test(name) ? name : null;
}

/**
 * Hashtags (issue 16 §2): a tag's entity with its week of use, following and unfollowing, the
 * followed list, prefix search, and the fan-out part that brings a new public status carrying a
 * followed tag into the follower's home feed (registered with the statuses fan-out job).
 */
export class TagService {
  constructor(private readonly deps: TagServiceDeps) {}

  /** GET /api/v1/tags/:name: a tag nobody used yet answers too (empty history), as the reference. */
  async tag(rawName: string, viewerId: string | null): Promise<TagView> {
    const name = this.nameOrNotFound(rawName);
    const [row] = await this.deps.sequelize.query<{ id: string; name: string }>(
      'SELECT id::text AS id, name FROM tags WHERE lower(name) = lower($1)',
      { bind: [name], type: QueryTypes.SELECT },
    );
    if (!row) return { id: null, name, history: emptyHistory(), following: viewerId === null ? null : false };
    const [view] = await this.views([row], viewerId);
    return view!;
  }

  /** POST /api/v1/tags/:name/follow (idempotent; the tag is made when nobody used it yet). */
  async follow(rawName: string, viewerId: string): Promise<TagView> {
    const name = this.nameOrNotFound(rawName);
    await this.deps.sequelize.transaction(async (transaction) => {
      await this.deps.sequelize.query(
        'INSERT INTO tags (name) VALUES ($1) ON CONFLICT ((lower(name))) DO NOTHING',
        { bind: [name], transaction },
      );
      await this.deps.sequelize.query(
        `INSERT INTO tag_follows (account_id, tag_id)
         SELECT $1, id FROM tags WHERE lower(name) = lower($2)
         ON CONFLICT (account_id, tag_id) DO NOTHING`,
        { bind: [viewerId, name], transaction },
      );
    });
    return this.tag(name, viewerId);
  }

  /** POST /api/v1/tags/:name/unfollow (idempotent). */
  async unfollow(rawName: string, viewerId: string): Promise<TagView> {
    const name = this.nameOrNotFound(rawName);
    await this.deps.sequelize.query(
      `DELETE FROM tag_follows f USING tags t
        WHERE f.tag_id = t.id AND f.account_id = $1 AND lower(t.name) = lower($2)`,
      { bind: [viewerId, name] },
    );
    return this.tag(name, viewerId);
  }

  /** GET /api/v1/followed_tags: newest follow first, paged by the follow's id (Link header). */
  async followed(viewerId: string, page: PageRequest): Promise<Page<TagView>> {
    const bind: unknown[] = [viewerId];
    const paged = pageSql('f.id', page, bind);
    const rows = await this.deps.sequelize.query<{ cursor: string; id: string; name: string }>(
      `SELECT f.id::text AS cursor, t.id::text AS id, t.name FROM tag_follows f JOIN tags t ON t.id = f.tag_id
        WHERE f.account_id = $1${paged.where}${paged.tail}`,
      { bind, type: QueryTypes.SELECT },
    );
    const result = pageRows(rows, page);
    return { ...result, items: await this.views(result.items, viewerId) };
  }

  /**
   * Search: hashtags whose name starts with `term` (case-insensitive), most used first, exact name
   * first. An index on `lower(name) text_pattern_ops` serves the prefix.
   */
  async search(term: string, viewerId: string | null, limit: number, offset: number): Promise<TagView[]> {
    const name = term.trim().replace(/^#/, '');
    if (name === '' || name.length > MAX_TAG_LENGTH) return [];
    const rows = await this.deps.sequelize.query<{ id: string; name: string }>(
      `SELECT t.id::text AS id, t.name FROM tags t
        WHERE lower(t.name) LIKE $1
        ORDER BY lower(t.name) = $2 DESC, length(t.name), lower(t.name)
        LIMIT $3 OFFSET $4`,
      {
        bind: [`${escapeLike(name.toLowerCase())}%`, name.toLowerCase(), limit, offset],
        type: QueryTypes.SELECT,
      },
    );
    return this.views(rows, viewerId);
  }

  /**
   * The statuses fan-out's followed-tags part (ADR 0019, 0035): a public original status joins the
   * home feed of every local account that follows one of its tags, unless the author blocks that
   * account. Idempotent (the job may retry). Blocks, mutes and domain blocks of the reader are
   * applied when the home feed is read, as for every home entry.
   */
  async fanOut(statusId: string): Promise<number> {
    const [result] = await this.deps.sequelize.query<{ n: number }>(
      `WITH inserted AS (
         INSERT INTO home_feed (account_id, status_id)
         SELECT DISTINCT f.account_id, s.id FROM statuses s
           JOIN statuses_tags st ON st.status_id = s.id
           JOIN tag_follows f ON f.tag_id = st.tag_id
           JOIN actors a ON a.id = f.account_id AND a.domain IS NULL
          WHERE s.id = $1 AND s.deleted_at IS NULL AND s.reblog_of_id IS NULL AND s.visibility = 'public'
            AND NOT EXISTS (SELECT 1 FROM blocks b
                             WHERE b.account_id = s.account_id AND b.target_account_id = f.account_id)
         ON CONFLICT DO NOTHING RETURNING 1)
       SELECT count(*)::int AS n FROM inserted`,
      { bind: [statusId], type: QueryTypes.SELECT },
    );
    return result?.n ?? 0;
  }

  /** Tag views for rows (in their order): the week's history and `following` in two queries. */
  async views(
    rows: ReadonlyArray<{ id: string; name: string }>,
    viewerId: string | null,
  ): Promise<TagView[]> {
    if (rows.length === 0) return [];
    const ids = rows.map((row) => row.id);
    const since = startOfDay(Date.now()) - (HISTORY_DAYS - 1) * DAY_MS;
    const [usage, followed] = await Promise.all([
      // Status ids are time-sortable (ms << 16), so the week is a range of the (tag_id, status_id) key.
      this.deps.sequelize.query<{ tagId: string; day: string; uses: number; accounts: number }>(
        `SELECT st.tag_id::text AS "tagId",
                (floor((s.id >> 16) / 86400000.0) * 86400)::bigint::text AS day,
                count(*)::int AS uses, count(DISTINCT s.account_id)::int AS accounts
           FROM statuses_tags st JOIN statuses s ON s.id = st.status_id AND s.deleted_at IS NULL
          WHERE st.tag_id = ANY($1::bigint[]) AND st.status_id >= ($2::bigint << 16)
          GROUP BY 1, 2`,
        { bind: [ids, since], type: QueryTypes.SELECT },
      ),
      viewerId === null
        ? Promise.resolve([] as Array<{ tagId: string }>)
        : this.deps.sequelize.query<{ tagId: string }>(
            `SELECT tag_id::text AS "tagId" FROM tag_follows WHERE account_id = $1 AND tag_id = ANY($2::bigint[])`,
            { bind: [viewerId, ids], type: QueryTypes.SELECT },
          ),
    ]);
    const followedIds = new Set(followed.map((row) => row.tagId));
    return rows.map((row) => {
      const days = new Map(usage.filter((u) => u.tagId === row.id).map((u) => [Number(u.day), u] as const));
      return {
        id: row.id,
        name: row.name,
        history: emptyHistory().map((entry) => {
          const used = days.get(entry.day);
          return used ? { day: entry.day, uses: used.uses, accounts: used.accounts } : entry;
        }),
        following: viewerId === null ? null : followedIds.has(row.id),
      };
    });
  }

  private nameOrNotFound(raw: string): string {
    const name = tagNameOf(raw);
    if (name === null) throw new NotFound(RECORD_NOT_FOUND);
    return name;
  }
}

const DAY_MS = 86_400_000;

function startOfDay(ms: number): number {
  return Math.floor(ms / DAY_MS) * DAY_MS;
}

/** The week, newest day first, with nothing used. */
function emptyHistory(): TagHistoryDay[] {
  const today = startOfDay(Date.now());
  return Array.from({ length: HISTORY_DAYS }, (_, i) => ({
    day: (today - i * DAY_MS) / 1000,
    uses: 0,
    accounts: 0,
  }));
}

export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (character) => `\\${character}`);
}
