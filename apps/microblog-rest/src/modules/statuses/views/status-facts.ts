import { preparedStatement } from '@agora/db';
import type { Sequelize } from 'sequelize';

/**
 * The facts of a status that change without moving its render stamp (ADR 0039), as columns of one
 * statement: the home page's and the statuses view's by ids (ADR 0047) read them the same way.
 */

/** What changes often about one status of a page, read fresh on every page (ADR 0039). */
export interface StatusFacts {
  id: string;
  /** Moves whenever the status's JSON (counters and viewer flags aside) may change. */
  stamp: string;
  hasPoll: boolean;
  repliesCount: number;
  reblogsCount: number;
  favouritesCount: number;
  accountId: string;
  /** Moves whenever the account's JSON (counters aside) may change. */
  accountStamp: string;
  followersCount: number;
  followingCount: number;
  statusesCount: number;
  /** The UTC day, as the account entity shows it. */
  lastStatusDay: string | null;
  favourited: boolean;
  reblogged: boolean;
  bookmarked: boolean;
  muted: boolean;
  pinned: boolean;
}

/** The facts read per status, as `<prefix>_<fact>` columns. */
const FACT_NAMES = [
  'stamp',
  'has_poll',
  'replies',
  'reblogs',
  'favourites',
  'account',
  'account_stamp',
  'followers',
  'following',
  'statuses',
  'last_status_day',
  'favourited',
  'reblogged',
  'bookmarked',
  'muted',
  'pinned',
] as const;
type FactName = (typeof FACT_NAMES)[number];

/** A row holding `<prefix>_<fact>` columns. */
export type FactRow = Record<string, unknown>;

/**
 * The facts of status `x` (and its account) under column names `<prefix>_<fact>`, for viewer `v`.
 * Each `EXISTS` ends in `OFFSET 0` so that PostgreSQL cannot turn it into a hashed subplan: that
 * reads ALL of the viewer's favourites (bookmarks, pins…) or every poll into a hash table on every
 * execution, which the generic plan of a 20-status page chose (1,499 favourites hashed twice per
 * search page on the bench seed, ADR 0052); a probe per status by the unique index stays bounded.
 */
export function factColumns(x: string, prefix: string): string {
  const acc = `${prefix}_acc`;
  const col = (name: FactName) => `${prefix}_${name}`;
  return `${x}.updated_at::text AS ${col('stamp')},
    EXISTS (SELECT 1 FROM polls p WHERE p.status_id = ${x}.id OFFSET 0) AS ${col('has_poll')},
    ${x}.replies_count AS ${col('replies')}, ${x}.reblogs_count AS ${col('reblogs')},
    ${x}.favourites_count AS ${col('favourites')},
    ${x}.account_id::text AS ${col('account')},
    ${acc}.stamp AS ${col('account_stamp')}, ${acc}.followers_count AS ${col('followers')},
    ${acc}.following_count AS ${col('following')}, ${acc}.statuses_count AS ${col('statuses')},
    to_char(${acc}.last_status_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS ${col('last_status_day')},
    ${viewerFlagColumns(x, 'v.id', col)}`;
}

/**
 * The viewer's five flags on status `x` (`viewer`: the viewer's account id as SQL), each column named
 * by `col`. Every `EXISTS` ends in `OFFSET 0`, for the reason `factColumns` gives: written once for
 * every statement that reads the flags, prepared ones included.
 */
export function viewerFlagColumns(
  x: string,
  viewer: string,
  col: (name: 'favourited' | 'reblogged' | 'bookmarked' | 'muted' | 'pinned') => string,
): string {
  return `EXISTS (SELECT 1 FROM favourites f WHERE f.account_id = ${viewer} AND f.status_id = ${x}.id OFFSET 0) AS ${col('favourited')},
    EXISTS (SELECT 1 FROM statuses o WHERE o.account_id = ${viewer} AND o.reblog_of_id = ${x}.id
             AND o.deleted_at IS NULL OFFSET 0) AS ${col('reblogged')},
    EXISTS (SELECT 1 FROM bookmarks b WHERE b.account_id = ${viewer} AND b.status_id = ${x}.id OFFSET 0) AS ${col('bookmarked')},
    EXISTS (SELECT 1 FROM conversation_mutes c WHERE c.account_id = ${viewer}
             AND c.conversation_id = ${x}.conversation_id OFFSET 0) AS ${col('muted')},
    EXISTS (SELECT 1 FROM status_pins sp WHERE sp.account_id = ${viewer} AND sp.status_id = ${x}.id OFFSET 0) AS ${col('pinned')}`;
}

/**
 * The render stamp of account `a` (ADR 0039) and the joins it reads: everything its JSON shows but
 * the counters. Written once: the home page's token (ADR 0049) reads the same stamp.
 */
export const ACCOUNT_STAMP = `concat(a.updated_at::text, '|', u.role, '|', st.hide_collections::text, '|',
                    am.keys::text, '|', hm.keys::text)`;
export const ACCOUNT_STAMP_JOINS = `LEFT JOIN users u ON a.domain IS NULL AND u.id = a.user_id
        LEFT JOIN account_settings st ON a.domain IS NULL AND st.actor_id = a.id
        LEFT JOIN remote_media_files am ON a.domain IS NOT NULL AND am.url = a.avatar_url
        LEFT JOIN remote_media_files hm ON a.domain IS NOT NULL AND hm.url = a.header_url`;

/**
 * The account of status `x` with its counters and render stamp: the actor's `updated_at` (moved by
 * a trigger on every change but counters), the owner's role and `hide_collections`, and for a
 * remote account which local copies of its images exist.
 */
export function accountJoin(x: string, prefix: string): string {
  return `LEFT JOIN LATERAL (
      SELECT a.followers_count, a.following_count, a.statuses_count, a.last_status_at,
             ${ACCOUNT_STAMP} AS stamp
        FROM actors a
        ${ACCOUNT_STAMP_JOINS}
       WHERE a.id = ${x}.account_id) ${prefix}_acc ON true`;
}

/** The column of each fact, per prefix, named once rather than per row. */
const COLUMNS = {
  s: columnsOf('s'),
  r: columnsOf('r'),
};

function columnsOf(prefix: 's' | 'r'): Record<FactName, string> {
  return Object.fromEntries(FACT_NAMES.map((name) => [name, `${prefix}_${name}`])) as Record<
    FactName,
    string
  >;
}

export function facts(row: FactRow, prefix: 's' | 'r', id: string): StatusFacts {
  const c = COLUMNS[prefix];
  return {
    id,
    stamp: row[c.stamp] as string,
    hasPoll: row[c.has_poll] as boolean,
    repliesCount: row[c.replies] as number,
    reblogsCount: row[c.reblogs] as number,
    favouritesCount: row[c.favourites] as number,
    accountId: row[c.account] as string,
    accountStamp: (row[c.account_stamp] as string | null) ?? '',
    followersCount: (row[c.followers] as number | null) ?? 0,
    followingCount: (row[c.following] as number | null) ?? 0,
    statusesCount: (row[c.statuses] as number | null) ?? 0,
    lastStatusDay: row[c.last_status_day] as string | null,
    favourited: row[c.favourited] as boolean,
    reblogged: row[c.reblogged] as boolean,
    bookmarked: row[c.bookmarked] as boolean,
    muted: row[c.muted] as boolean,
    pinned: row[c.pinned] as boolean,
  };
}

/** A status of a list read by ids: its facts and, for a reblog, the original's. */
export interface FactsEntry {
  status: StatusFacts;
  reblog: StatusFacts | null;
}

/** The facts of a list of statuses for one viewer (or none), in the order asked. */
export interface FactsPage {
  /** The viewer has filters (expired ones too): the list needs their matcher. */
  hasFilters: boolean;
  entries: FactsEntry[];
}

type FactsByIdRow = { id: string; reblog_of_id: string | null; has_filters: boolean } & FactRow;

/**
 * The facts of the statuses `$1` (in their order, repeated ids repeated, unknown ids left out) and of
 * their reblogged originals, for viewer `$2` (null: anonymous, every flag false), in ONE statement
 * (ADR 0047). Deleted statuses are read too, as the statuses view reads them: the caller chose the
 * ids. `has_filters` depends on `$2` alone (an InitPlan, evaluated once).
 */
const FACTS_BY_IDS = preparedStatement<FactsByIdRow, [string[], string | null]>({
  name: 'microblog_status_facts_by_ids',
  text: `SELECT s.id::text AS id, s.reblog_of_id::text AS reblog_of_id,
         (SELECT EXISTS (SELECT 1 FROM filters fl WHERE fl.account_id = $2::bigint)) AS has_filters,
         ${factColumns('s', 's')},
         ${factColumns('r', 'r')}
    FROM (SELECT $2::bigint AS id) v
    CROSS JOIN unnest($1::bigint[]) WITH ORDINALITY w(id, ord)
    JOIN statuses s ON s.id = w.id
    ${accountJoin('s', 's')}
    LEFT JOIN statuses r ON r.id = s.reblog_of_id
    ${accountJoin('r', 'r')}
   ORDER BY w.ord`,
});

/** The facts of `ids` for `viewerId` (see `FACTS_BY_IDS`); ids must be row ids. */
export async function readStatusFacts(
  sequelize: Sequelize,
  ids: readonly string[],
  viewerId: string | null,
): Promise<FactsPage> {
  if (ids.length === 0) return { hasFilters: false, entries: [] };
  const rows = await FACTS_BY_IDS.rows(sequelize, [[...ids], viewerId]);
  return {
    hasFilters: rows[0]?.has_filters ?? false,
    entries: rows.map((row) => ({
      status: facts(row, 's', row.id),
      reblog: row.reblog_of_id === null ? null : facts(row, 'r', row.reblog_of_id),
    })),
  };
}
