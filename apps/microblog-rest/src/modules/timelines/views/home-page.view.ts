import { preparedStatement } from '@agora/db';
import type { Sequelize } from 'sequelize';
import { withPageToken, type HomePageSource } from './home-page-token.view.js';

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

/** One status of a home page: its facts and, for a reblog, the original's. */
export interface HomeEntry {
  status: StatusFacts;
  reblog: StatusFacts | null;
}

/** A home page read in one statement, or null when the user has no usable account. */
export interface HomePage {
  accountId: string;
  /** The viewer has filters (expired ones too): the page needs their matcher. */
  hasFilters: boolean;
  entries: HomeEntry[];
  /** What the page was made from, with its token read in the same statement (ADR 0049). */
  source: HomePageSource;
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

/** The facts of status `x` (and its account) under column names `<prefix>_<fact>`, for viewer `v`. */
function factColumns(x: string, prefix: string): string {
  const acc = `${prefix}_acc`;
  const col = (name: FactName) => `${prefix}_${name}`;
  return `${x}.updated_at::text AS ${col('stamp')},
    EXISTS (SELECT 1 FROM polls p WHERE p.status_id = ${x}.id) AS ${col('has_poll')},
    ${x}.replies_count AS ${col('replies')}, ${x}.reblogs_count AS ${col('reblogs')},
    ${x}.favourites_count AS ${col('favourites')},
    ${x}.account_id::text AS ${col('account')},
    ${acc}.stamp AS ${col('account_stamp')}, ${acc}.followers_count AS ${col('followers')},
    ${acc}.following_count AS ${col('following')}, ${acc}.statuses_count AS ${col('statuses')},
    to_char(${acc}.last_status_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS ${col('last_status_day')},
    EXISTS (SELECT 1 FROM favourites f WHERE f.account_id = v.id AND f.status_id = ${x}.id) AS ${col('favourited')},
    EXISTS (SELECT 1 FROM statuses o WHERE o.account_id = v.id AND o.reblog_of_id = ${x}.id
             AND o.deleted_at IS NULL) AS ${col('reblogged')},
    EXISTS (SELECT 1 FROM bookmarks b WHERE b.account_id = v.id AND b.status_id = ${x}.id) AS ${col('bookmarked')},
    EXISTS (SELECT 1 FROM conversation_mutes c WHERE c.account_id = v.id
             AND c.conversation_id = ${x}.conversation_id) AS ${col('muted')},
    EXISTS (SELECT 1 FROM status_pins sp WHERE sp.account_id = v.id AND sp.status_id = ${x}.id) AS ${col('pinned')}`;
}

/**
 * The account of status `x` with its counters and render stamp: the actor's `updated_at` (moved by
 * a trigger on every change but counters), the owner's role and `hide_collections`, and for a
 * remote account which local copies of its images exist.
 */
function accountJoin(x: string, prefix: string): string {
  return `LEFT JOIN LATERAL (
      SELECT a.followers_count, a.following_count, a.statuses_count, a.last_status_at,
             concat(a.updated_at::text, '|', u.role, '|', st.hide_collections::text, '|',
                    am.keys::text, '|', hm.keys::text) AS stamp
        FROM actors a
        LEFT JOIN users u ON a.domain IS NULL AND u.id = a.user_id
        LEFT JOIN account_settings st ON a.domain IS NULL AND st.actor_id = a.id
        LEFT JOIN remote_media_files am ON a.domain IS NOT NULL AND am.url = a.avatar_url
        LEFT JOIN remote_media_files hm ON a.domain IS NOT NULL AND hm.url = a.header_url
       WHERE a.id = ${x}.account_id) ${prefix}_acc ON true`;
}

/**
 * GET /api/v1/timelines/home in ONE statement: the user's account (a usable login: not disabled,
 * confirmed), the page of its feed (its own and followed accounts' statuses and reblogs, without
 * blocked, muted (until the mute ends) or domain-blocked authors of the status or the reblogged one,
 * and without reblogs of follows asked with `reblogs: false`), and for each status and reblogged
 * original the facts a cached rendering needs (stamps, counters, the viewer's flags).
 * `$2`/`$3`: exclusive upper and lower bounds of the ids; `$4`: the limit.
 */
export function homePageSql(direction: 'ASC' | 'DESC'): string {
  return `WITH viewer AS (
      SELECT a.id FROM users u
        JOIN LATERAL (SELECT a.id FROM actors a
                       WHERE a.user_id = u.id AND a.domain IS NULL AND a.type IN ('Person', 'Service')
                       ORDER BY a.id LIMIT 1) a ON true
       WHERE u.id = $1 AND NOT u.disabled AND u.confirmed_at IS NOT NULL)
    SELECT v.id::text AS viewer,
           EXISTS (SELECT 1 FROM filters fl WHERE fl.account_id = v.id) AS has_filters,
           e.*
      FROM viewer v
      LEFT JOIN LATERAL (
        SELECT s.id::text AS id, s.reblog_of_id::text AS reblog_of_id,
               ${factColumns('s', 's')},
               ${factColumns('r', 'r')}
          FROM (
            -- Inside the lateral join the account is a parameter of this subquery: it is planned as
            -- a backward scan of the feed's primary key that stops at the limit (joined to the
            -- viewer row instead, the planner sorts the whole feed first).
            SELECT h.status_id AS id FROM home_feed h
              JOIN statuses s ON s.id = h.status_id AND s.deleted_at IS NULL
              LEFT JOIN statuses r ON r.id = s.reblog_of_id
             WHERE h.account_id = v.id AND h.status_id < $2::bigint AND h.status_id > $3::bigint
               AND NOT EXISTS (SELECT 1 FROM blocks b WHERE b.account_id = v.id
                                AND b.target_account_id IN (s.account_id, r.account_id))
               AND NOT EXISTS (SELECT 1 FROM mutes m WHERE m.account_id = v.id
                                AND m.target_account_id IN (s.account_id, r.account_id)
                                AND (m.expires_at IS NULL OR m.expires_at > now()))
               AND NOT EXISTS (SELECT 1 FROM account_domain_blocks d JOIN actors a ON a.domain = d.domain
                                WHERE d.account_id = v.id AND a.id IN (s.account_id, r.account_id))
               AND (s.reblog_of_id IS NULL OR NOT EXISTS (
                     SELECT 1 FROM follows f WHERE f.actor_id = v.id AND f.target_actor_id = s.account_id
                        AND NOT f.show_reblogs))
             ORDER BY h.status_id ${direction} LIMIT $4::int) p
          JOIN statuses s ON s.id = p.id
          ${accountJoin('s', 's')}
          LEFT JOIN statuses r ON r.id = s.reblog_of_id
          ${accountJoin('r', 'r')}
         ORDER BY p.id ${direction}) e ON true`;
}

type PageRow = {
  viewer: string;
  has_filters: boolean;
  id: string | null;
  reblog_of_id: string | null;
  feed_lo: string;
  feed_hi: string;
  token: string;
} & {
  [key: string]: unknown;
};

const HOME_PAGE_NEWEST = preparedStatement<PageRow, [string, string, string, number]>({
  name: 'microblog_home_page_desc',
  text: withPageToken(homePageSql('DESC'), 'DESC'),
});
const HOME_PAGE_OLDEST = preparedStatement<PageRow, [string, string, string, number]>({
  name: 'microblog_home_page_asc',
  text: withPageToken(homePageSql('ASC'), 'ASC'),
});

const NO_UPPER = '9223372036854775807';
const NO_LOWER = '0';

/**
 * The page of `userId`'s home newest first: `maxId` (older than), `sinceId`/`minId` (newer than;
 * `minId` reads the page just after it). Null when the user's login or account is not usable (the
 * caller answers as every guarded route does).
 */
export async function readHomePage(
  sequelize: Sequelize,
  userId: string,
  page: { maxId: string | undefined; sinceId: string | undefined; minId: string | undefined; limit: number },
): Promise<HomePage | null> {
  const ascending = page.minId !== undefined;
  const lower = [page.sinceId, page.minId]
    .filter((id): id is string => id !== undefined)
    .reduce((a, b) => (BigInt(a) > BigInt(b) ? a : b), NO_LOWER);
  const statement = ascending ? HOME_PAGE_OLDEST : HOME_PAGE_NEWEST;
  const rows = await statement.rows(sequelize, [userId, page.maxId ?? NO_UPPER, lower, page.limit]);
  const first = rows[0];
  if (!first) return null;
  const entries: HomeEntry[] = [];
  for (const row of rows) {
    if (row.id === null) continue;
    entries.push({
      status: facts(row, 's', row.id),
      reblog: row.reblog_of_id === null ? null : facts(row, 'r', row.reblog_of_id),
    });
  }
  if (ascending) entries.reverse();
  const source: HomePageSource = {
    viewer: first.viewer,
    feedLo: first.feed_lo,
    feedHi: first.feed_hi,
    statuses: entries.flatMap(({ status, reblog }) => (reblog ? [status.id, reblog.id] : [status.id])),
    accounts: entries.flatMap(({ status, reblog }) =>
      reblog ? [status.accountId, reblog.accountId] : [status.accountId],
    ),
    token: first.token,
  };
  return { accountId: first.viewer, hasFilters: first.has_filters, entries, source };
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

function facts(row: PageRow, prefix: 's' | 'r', id: string): StatusFacts {
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
