const MAX_BIGINT = 2n ** 63n - 1n;

/**
 * Whether `id` can name a row by its `bigint` primary key: digits only, within PostgreSQL's range. A
 * caller's id that fails is "not found", never a database error (or a cast that matches nothing).
 */
export function isRowId(id: string): boolean {
  return /^\d{1,19}$/.test(id) && BigInt(id) <= MAX_BIGINT;
}
