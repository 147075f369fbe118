import { preparedStatement } from '@agora/db';
import type { Sequelize } from 'sequelize';
import { accountJoin, factColumns, facts, type StatusFacts } from '../../statuses/views/status-facts.js';
import { VIEWER_OF_USER, withPageToken, type HomePageSource } from './home-page-token.view.js';

export type { StatusFacts } from '../../statuses/views/status-facts.js';

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

/**
 * GET /api/v1/timelines/home in ONE statement: the user's account (a usable login: not disabled,
 * confirmed), the page of its feed (its own and followed accounts' statuses and reblogs, without
 * blocked, muted (until the mute ends) or domain-blocked authors of the status or the reblogged one,
 * and without reblogs of follows asked with `reblogs: false`), and for each status and reblogged
 * original the facts a cached rendering needs (stamps, counters, the viewer's flags).
 * `$2`/`$3`: exclusive upper and lower bounds of the ids; `$4`: the limit.
 */
export function homePageSql(direction: 'ASC' | 'DESC'): string {
  return `WITH ${VIEWER_OF_USER}
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
