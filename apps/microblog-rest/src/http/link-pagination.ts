import type { Request, Response } from 'express';
import { z } from 'zod';
import { isRowId } from '@agora/db';

/**
 * The one paging stack of the REST API (§2): the query fields (`max_id`, `since_id`, `min_id`,
 * `limit`), the SQL of a page, its rows newest first and Mastodon's `Link` header, which masto.js
 * and megalodon follow (`next`: `max_id` = the oldest cursor shown; `prev`: `min_id` = the newest).
 */

/** A page request: cursors (row ids, else absent) and a limit already clamped. */
export interface PageRequest {
  limit: number;
  /** Older than this cursor. */
  maxId: string | undefined;
  /** Newer than this cursor, newest first. */
  sinceId: string | undefined;
  /** Immediately newer than this cursor (the page right after it, oldest first then reversed). */
  minId: string | undefined;
}

/** A page of items with the cursors the Link header names. */
export interface Page<T> {
  items: T[];
  /** The cursor of the oldest item (next page: `max_id`); absent when the page is empty. */
  oldest?: string;
  /** The cursor of the newest item (previous page: `min_id`). */
  newest?: string;
  /** Rows the page read, when items were left out after (suspended accounts): decides `next`. */
  fetched?: number;
}

/**
 * What a `limit` below 1 reads as. The statuses lists (timelines, favourites, bookmarks,
 * reblogged_by/favourited_by) have always read it as 1, the other lists as their default.
 */
export type LimitFloor = 'one' | 'default';

/** `limit`: a number clamped to `max`; not a number reads as the default, below 1 as `floor` says. */
function limitParam(defaultLimit: number, max: number, floor: LimitFloor) {
  return z
    .unknown()
    .transform((value) => {
      const n =
        typeof value === 'string' || typeof value === 'number' ? Number.parseInt(String(value), 10) : NaN;
      if (!Number.isFinite(n)) return defaultLimit;
      if (n < 1) return floor === 'one' ? 1 : defaultLimit;
      return Math.min(n, max);
    })
    .optional();
}

/** A cursor: an id we could have handed out, else absent (a wrong cursor pages from the start). */
const cursor = z
  .unknown()
  .transform((value) => (typeof value === 'string' && isRowId(value) ? value : undefined))
  .optional();

/**
 * The query fields of a paged list, to spread into a route's own query object beside its filters;
 * `pageRequest` turns the parsed query into a page.
 */
export function pageFields(defaultLimit: number, max: number, floor: LimitFloor = 'default') {
  return {
    limit: limitParam(defaultLimit, max, floor),
    max_id: cursor,
    since_id: cursor,
    min_id: cursor,
  };
}

/** Statuses page 20 by default and 40 at most. */
export const STATUS_PAGE = pageFields(20, 40, 'one');
/** Accounts that favourited or reblogged a status: 40, at most 80. */
export const ACCOUNT_PAGE = pageFields(40, 80, 'one');

/** The page a query parsed with `pageFields` asks for. */
export function pageRequest(
  query: {
    max_id?: string | undefined;
    since_id?: string | undefined;
    min_id?: string | undefined;
    limit?: number | undefined;
  },
  defaultLimit: number,
): PageRequest {
  return {
    limit: query.limit ?? defaultLimit,
    maxId: query.max_id,
    sinceId: query.since_id,
    minId: query.min_id,
  };
}

/** The query schema of a list with no other parameters (accounts: 40, at most 80). */
export function pageParams(defaultLimit = 40, max = 80) {
  return z
    .preprocess(
      (value) => (typeof value === 'object' && value !== null ? value : {}),
      z.object(pageFields(defaultLimit, max)),
    )
    .transform((query) => pageRequest(query, defaultLimit));
}

/** The conditions on `column` a page sets, with `$n` parameters numbered from `first`. */
function pageConditions(column: string, page: PageRequest, first: number) {
  const conditions: string[] = [];
  const values: string[] = [];
  const add = (operator: string, value: string | undefined) => {
    if (value === undefined) return;
    values.push(value);
    conditions.push(`${column} ${operator} $${first + values.length - 1}::bigint`);
  };
  add('<', page.maxId);
  add('>', page.sinceId);
  add('>', page.minId);
  return { conditions, values, order: `${column} ${page.minId !== undefined ? 'ASC' : 'DESC'}` };
}

/**
 * The SQL of a page over `column` (a bigint cursor): conditions, order and limit, with its values
 * appended to `bind`. Rows come newest first; with `min_id` they are fetched oldest first and the
 * caller reverses them (`pageRows`).
 */
export function pageSql(column: string, page: PageRequest, bind: unknown[]): { where: string; tail: string } {
  const { conditions, values, order } = pageConditions(column, page, bind.length + 1);
  bind.push(...values, page.limit);
  return {
    where: conditions.length > 0 ? ` AND ${conditions.join(' AND ')}` : '',
    tail: ` ORDER BY ${order} LIMIT $${bind.length}`,
  };
}

/**
 * The same page as separate pieces, with `$n` parameters numbered from `first` and no limit: for
 * a query whose values are gathered after it (`modules/timelines/timeline.service.ts`). New code
 * uses `pageSql`.
 */
export function pageClauses(
  column: string,
  page: PageRequest,
  first: number,
): { where: string; order: string; values: string[]; ascending: boolean } {
  const { conditions, values, order } = pageConditions(column, page, first);
  return {
    where: conditions.length === 0 ? 'true' : conditions.join(' AND '),
    order,
    values,
    ascending: page.minId !== undefined,
  };
}

/** Items newest first (as `pageSql` read them) with the cursors of the first and last. */
export function pageOf<T>(items: T[], cursorOf: (item: T) => string): Page<T> {
  return items.length === 0
    ? { items }
    : { items, newest: cursorOf(items[0]!), oldest: cursorOf(items.at(-1)!) };
}

/** Rows of `pageSql` newest first, with their cursors. */
export function pageRows<R extends { cursor: string }>(rows: R[], page: PageRequest): Page<R> {
  return pageOf(page.minId !== undefined ? [...rows].reverse() : rows, (row) => String(row.cursor));
}

/**
 * `Link: <…?max_id=X>; rel="next", <…?min_id=Y>; rel="prev"` on the request's own URL (other
 * parameters kept, `access_token` never). `prev` whenever the page has items; `next` after a full
 * page of `fullPage` rows when given (the reference's `records_continue?` of account lists),
 * whenever the page has items otherwise (its status timelines). An empty page gets no header.
 */
export function setLinkHeader(
  req: Request,
  res: Response,
  publicUrl: string,
  page: Page<unknown>,
  fullPage?: number,
): void {
  const links: string[] = [];
  const url = (key: 'max_id' | 'min_id', value: string) => {
    const target = new URL(req.originalUrl, publicUrl);
    for (const name of ['max_id', 'min_id', 'since_id', 'access_token']) target.searchParams.delete(name);
    target.searchParams.set(key, value);
    // On the public URL, path included (a proxy that serves us below a path strips it).
    return `${publicUrl}${target.pathname}${target.search}`;
  };
  if (page.oldest && (fullPage === undefined || (page.fetched ?? page.items.length) >= fullPage))
    links.push(`<${url('max_id', page.oldest)}>; rel="next"`);
  if (page.newest) links.push(`<${url('min_id', page.newest)}>; rel="prev"`);
  if (links.length > 0) res.setHeader('Link', links.join(', '));
}
