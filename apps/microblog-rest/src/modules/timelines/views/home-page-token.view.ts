import { preparedStatement } from '@agora/db';
import type { Sequelize } from 'sequelize';

/** `viewer`: the account of user `$1` when its login is usable (not disabled, confirmed). */
export const VIEWER_OF_USER = `viewer AS (
      SELECT a.id FROM users u
        JOIN LATERAL (SELECT a.id FROM actors a
                       WHERE a.user_id = u.id AND a.domain IS NULL AND a.type IN ('Person', 'Service')
                       ORDER BY a.id LIMIT 1) a ON true
       WHERE u.id = $1 AND NOT u.disabled AND u.confirmed_at IS NOT NULL)`;

/**
 * What a kept home page was made from (ADR 0049): the part of the viewer's feed the page covers, and
 * the statuses and accounts it shows. Its token, read again in one statement, tells whether the
 * page would still be the same.
 */
export interface HomePageSource {
  /** The viewer's account. */
  viewer: string;
  /** Exclusive bounds of the feed's ids the page was chosen from (its rows decide the page). */
  feedLo: string;
  feedHi: string;
  /** The page's statuses and reblogged originals, and their accounts. */
  statuses: string[];
  accounts: string[];
  /** Everything the page shows as of the read (see `pageTokenSql`). */
  token: string;
}

/**
 * The token of a home page, one text value, as SQL over `viewer`, the feed's bounds `lo`/`hi`
 * (exclusive) and the arrays of the page's `statuses` and `accounts`. It changes whenever the page
 * would: the viewer's stamp (its flags, blocks, mutes, domain blocks, follows' `show_reblogs`,
 * filters: migration `20261129130000-home-viewer-stamps`), how many of its mutes and filters have
 * expired by now (an expiry changes the page without a write), the feed's rows between the bounds
 * (fan-out, merges and removals of every path), and the row version (`xmin`, the transaction that
 * wrote it) of each status and account on the page (ADR 0053): every change of what a status's or an
 * account's JSON shows writes its row — its own columns and counters, ADR 0039's render-stamp touches
 * (media, cards) and, for an account, its owner's role, `hide_collections` and local image copies
 * (migration `20261130120000-home-account-row-stamps`) — and no two committed writes share an
 * `xmin`, so an unchanged value is an unwritten row. Deleting a row changes the list's length.
 */
function pageTokenSql(viewer: string, lo: string, hi: string, statuses: string, accounts: string): string {
  return `concat(
      (SELECT hs.stamp FROM home_viewer_stamps hs WHERE hs.account_id = ${viewer}), ';',
      (SELECT count(*) FROM mutes m WHERE m.account_id = ${viewer} AND m.expires_at <= now()), ';',
      (SELECT count(*) FROM filters fl WHERE fl.account_id = ${viewer} AND fl.expires_at <= now()), ';',
      (SELECT string_agg(h.status_id::text, ',' ORDER BY h.status_id) FROM home_feed h
        WHERE h.account_id = ${viewer} AND h.status_id > ${lo} AND h.status_id < ${hi}), ';',
      (SELECT string_agg(x.xmin::text, ',' ORDER BY x.id) FROM statuses x WHERE x.id = ANY(${statuses})), ';',
      (SELECT string_agg(a.xmin::text, ',' ORDER BY a.id) FROM actors a WHERE a.id = ANY(${accounts})))`;
}

/**
 * The home page statement `pageSql` (its `$1`…`$4`: user, upper and lower bounds, limit) with the
 * page's token read in the same statement, so in the same snapshot: `feed_lo`, `feed_hi` and
 * `token` on each row. A full page depends on the feed from its last id up to the upper bound; a
 * short one on the whole range.
 */
export function withPageToken(pageSql: string, direction: 'ASC' | 'DESC'): string {
  const bounds =
    direction === 'DESC'
      ? `CASE WHEN count(p.id) = $4::int THEN min(p.id::bigint) - 1 ELSE $3::bigint END AS lo, $2::bigint AS hi`
      : `$3::bigint AS lo, CASE WHEN count(p.id) = $4::int THEN max(p.id::bigint) + 1 ELSE $2::bigint END AS hi`;
  return `WITH page AS (${pageSql}),
    bounds AS MATERIALIZED (
      SELECT b.*, ${pageTokenSql('b.viewer', 'b.lo', 'b.hi', 'b.statuses', 'b.accounts')} AS token
        FROM (SELECT min(p.viewer::bigint) AS viewer, ${bounds},
                     array_agg(p.id::bigint) FILTER (WHERE p.id IS NOT NULL)
                       || array_agg(p.reblog_of_id::bigint) FILTER (WHERE p.reblog_of_id IS NOT NULL) AS statuses,
                     array_agg(p.s_account::bigint) FILTER (WHERE p.id IS NOT NULL)
                       || array_agg(p.r_account::bigint) FILTER (WHERE p.reblog_of_id IS NOT NULL) AS accounts
                FROM page p) b)
    SELECT p.*, b.lo::text AS feed_lo, b.hi::text AS feed_hi, b.token
      FROM page p CROSS JOIN bounds b
     ORDER BY p.id::bigint ${direction}`;
}

/**
 * The viewer's account (a usable login, as the page reads it) and the token of a kept page: `$1` the
 * user, `$2`/`$3` the feed's bounds, `$4`/`$5` the page's statuses and accounts.
 */
export const HOME_PAGE_TOKEN_SQL = `WITH ${VIEWER_OF_USER}
    SELECT v.id::text AS viewer,
           ${pageTokenSql('v.id', '$2::bigint', '$3::bigint', '$4::bigint[]', '$5::bigint[]')} AS token
      FROM viewer v`;

const PAGE_TOKEN = preparedStatement<
  { viewer: string; token: string },
  [userId: string, lo: string, hi: string, statuses: Buffer, accounts: Buffer]
>({ name: 'microblog_home_page_token', text: HOME_PAGE_TOKEN_SQL });

/** `int8`'s type oid: the element type a binary `bigint[]` names. */
const INT8_OID = 20;

/**
 * `ids` as a `bigint[]` parameter in PostgreSQL's binary format (a Buffer is sent as binary): made
 * once per kept page, so a check builds no array text and PostgreSQL parses none.
 */
export function bigintArrayParameter(ids: readonly string[]): Buffer {
  const dimensions = ids.length === 0 ? 0 : 1;
  const out = Buffer.alloc(12 + dimensions * 8 + ids.length * 12);
  out.writeInt32BE(dimensions, 0);
  out.writeInt32BE(0, 4); // no nulls
  out.writeInt32BE(INT8_OID, 8);
  let at = 12;
  if (dimensions === 1) {
    out.writeInt32BE(ids.length, at);
    out.writeInt32BE(1, at + 4); // lower bound
    at += 8;
  }
  for (const id of ids) {
    out.writeInt32BE(8, at);
    out.writeBigInt64BE(BigInt(id), at + 4);
    at += 12;
  }
  return out;
}

/** The page's arrays as the token statement takes them, made on a page's first check. */
const PARAMETERS = new WeakMap<HomePageSource, readonly [statuses: Buffer, accounts: Buffer]>();

function parametersOf(source: HomePageSource): readonly [Buffer, Buffer] {
  let made = PARAMETERS.get(source);
  if (made === undefined) {
    made = [bigintArrayParameter(source.statuses), bigintArrayParameter(source.accounts)];
    PARAMETERS.set(source, made);
  }
  return made;
}

/** Whether a page made from `source` is still what `userId`'s home shows: one single-row statement. */
export async function homePageStillTrue(
  sequelize: Sequelize,
  userId: string,
  source: HomePageSource,
): Promise<boolean> {
  const [statuses, accounts] = parametersOf(source);
  const [row] = await PAGE_TOKEN.rows(sequelize, [userId, source.feedLo, source.feedHi, statuses, accounts]);
  return row !== undefined && row.viewer === source.viewer && row.token === source.token;
}
