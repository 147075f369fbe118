import type { Request, Response } from 'express';
import { z } from 'zod';
import { isRowId } from '@agora/db';

/** A page of a list that pages by an internal id (§2: blocks, mutes, follows, domain blocks…). */
export interface PageParams {
  limit: number;
  /** Older than this cursor. */
  maxId?: string;
  /** Newer than this cursor, newest first. */
  sinceId?: string;
  /** Immediately newer than this cursor (the page right after it, oldest first then reversed). */
  minId?: string;
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

/** `limit` as Mastodon reads it: a number, clamped to `max`; anything else is the default. */
function limitParam(defaultLimit: number, max: number) {
  return z
    .unknown()
    .transform((value) => {
      const n =
        typeof value === 'string' || typeof value === 'number' ? Number.parseInt(String(value), 10) : NaN;
      if (!Number.isFinite(n) || n <= 0) return defaultLimit;
      return Math.min(n, max);
    })
    .optional();
}

/** A cursor: an id we could have handed out, else absent (a wrong cursor pages from the start). */
const cursor = z
  .unknown()
  .transform((value) => (typeof value === 'string' && isRowId(value) ? value : undefined))
  .optional();

/** The query schema of a paged list (accounts: 40, at most 80). */
export function pageParams(defaultLimit = 40, max = 80) {
  return z
    .preprocess(
      (value) => (typeof value === 'object' && value !== null ? value : {}),
      z.object({
        limit: limitParam(defaultLimit, max),
        max_id: cursor,
        since_id: cursor,
        min_id: cursor,
      }),
    )
    .transform((query): PageParams => ({
      limit: query.limit ?? defaultLimit,
      ...(query.max_id ? { maxId: query.max_id } : {}),
      ...(query.since_id ? { sinceId: query.since_id } : {}),
      ...(query.min_id ? { minId: query.min_id } : {}),
    }));
}

/**
 * The SQL of a page over `column` (a bigint cursor): conditions, order and limit, with its values
 * appended to `bind`. Rows come newest first; with `min_id` they are fetched oldest first and the
 * caller reverses them (`pageRows`).
 */
export function pageSql(column: string, page: PageParams, bind: unknown[]): { where: string; tail: string } {
  const conditions: string[] = [];
  const add = (operator: string, value: string) => {
    bind.push(value);
    conditions.push(`${column} ${operator} $${bind.length}::bigint`);
  };
  if (page.maxId) add('<', page.maxId);
  if (page.sinceId) add('>', page.sinceId);
  if (page.minId) add('>', page.minId);
  bind.push(page.limit);
  const order = page.minId ? 'ASC' : 'DESC';
  return {
    where: conditions.length > 0 ? ` AND ${conditions.join(' AND ')}` : '',
    tail: ` ORDER BY ${column} ${order} LIMIT $${bind.length}`,
  };
}

/** Rows of `pageSql` newest first, with their cursors. */
export function pageRows<R extends { cursor: string }>(rows: R[], page: PageParams): Page<R> {
  const items = page.minId ? [...rows].reverse() : rows;
  return items.length === 0
    ? { items }
    : { items, newest: String(items[0]!.cursor), oldest: String(items.at(-1)!.cursor) };
}

/**
 * `Link: <…?max_id=X>; rel="next", <…?min_id=Y>; rel="prev"` on the request's own URL (other
 * parameters kept): next only after a full page, prev whenever the page has items.
 */
export function setLinkHeader(
  req: Request,
  res: Response,
  publicUrl: string,
  page: Page<unknown>,
  limit: number,
): void {
  const links: string[] = [];
  const url = (key: 'max_id' | 'min_id', value: string) => {
    const target = new URL(req.originalUrl, publicUrl);
    const base = new URL(publicUrl);
    for (const name of ['max_id', 'min_id', 'since_id', 'access_token']) target.searchParams.delete(name);
    target.searchParams.set(key, value);
    return `${base.origin}${target.pathname}${target.search}`;
  };
  if (page.oldest && (page.fetched ?? page.items.length) >= limit)
    links.push(`<${url('max_id', page.oldest)}>; rel="next"`);
  if (page.newest) links.push(`<${url('min_id', page.newest)}>; rel="prev"`);
  if (links.length > 0) res.setHeader('Link', links.join(', '));
}
