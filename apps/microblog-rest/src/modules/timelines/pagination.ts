import { isRowId } from '@agora/db';
import { z } from 'zod';

/** A page request as §2 of the spec defines it: cursors and a limit (clamped, never refused). */
export interface PageRequest {
  /** Older than this id. */
  maxId: string | undefined;
  /** Newer than this id, newest first. */
  sinceId: string | undefined;
  /** Immediately newer than this id (the page right after it, oldest first in the query). */
  minId: string | undefined;
  limit: number;
}

/** A cursor: a row id, else ignored (a client's garbage never reaches SQL). */
const cursor = z
  .unknown()
  .transform((value) => (typeof value === 'string' && isRowId(value) ? value : undefined))
  .optional();

/** The `limit` parameter: default when absent or not a number, clamped to 1…max (`limit=1000` → max). */
function limit(defaultLimit: number, max: number) {
  return z
    .unknown()
    .transform((value) => {
      const n =
        typeof value === 'string' || typeof value === 'number' ? Number.parseInt(String(value), 10) : NaN;
      if (!Number.isFinite(n)) return defaultLimit;
      return Math.min(Math.max(n, 1), max);
    })
    .optional();
}

/** The query fields of a paged list; statuses page 20 by default and 40 at most, accounts 40/80. */
export function pageFields(defaultLimit: number, max: number) {
  return {
    max_id: cursor,
    since_id: cursor,
    min_id: cursor,
    limit: limit(defaultLimit, max),
  };
}

export const STATUS_PAGE = pageFields(20, 40);
export const ACCOUNT_PAGE = pageFields(40, 80);

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
    maxId: query.max_id,
    sinceId: query.since_id,
    minId: query.min_id,
    limit: query.limit ?? defaultLimit,
  };
}

/**
 * The SQL that pages rows by the id expression `column`: the WHERE conditions (with `$n` parameters
 * from `first` on), the ORDER BY and the values. With `min_id` the query reads upward (the page just
 * newer than it) and the caller reverses the rows, so every page is newest first.
 */
export function pageSql(
  column: string,
  page: PageRequest,
  first: number,
): { where: string; order: string; values: string[]; ascending: boolean } {
  const conditions: string[] = [];
  const values: string[] = [];
  const add = (op: string, value: string | undefined) => {
    if (value === undefined) return;
    values.push(value);
    conditions.push(`${column} ${op} $${first + values.length - 1}::bigint`);
  };
  add('<', page.maxId);
  add('>', page.sinceId);
  add('>', page.minId);
  const ascending = page.minId !== undefined;
  return {
    where: conditions.length === 0 ? 'true' : conditions.join(' AND '),
    order: `${column} ${ascending ? 'ASC' : 'DESC'}`,
    values,
    ascending,
  };
}
