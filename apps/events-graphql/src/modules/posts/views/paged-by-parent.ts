import DataLoader from 'dataloader';
import { QueryTypes, type Sequelize } from 'sequelize';

export interface Page<T> {
  elements: T[];
  total: number;
}

/** What a page query names: its parent row, a variant of the rules (`scope`), and the page. */
export interface PageKey {
  parentId: string;
  /** For queries whose rows depend on who asks (`PagedQuery.where`); none by default. */
  scope?: string;
  page: number;
  limit: number;
}

/** The SQL type of parent ids: actors and discussions are `bigint`, resources and todo lists `uuid`. */
export type ParentType = 'bigint' | 'uuid';

export interface PagedQuery {
  /** `SELECT <columns>` list of the rows, with the table aliased as the `from` clause says. */
  columns: string;
  /** `FROM …` (with joins) of the rows. */
  from: string;
  /** The column holding the parent id (e.g. `p.attributed_to_id`). */
  parentColumn: string;
  /** `bigint` unless said. */
  parentType?: ParentType;
  /** Extra conditions of a scope (`''` for none). */
  where: (scope: string) => string;
  /** ORDER BY of one parent's rows. */
  order: string;
}

/** What `rankedPages` reads: rows of many parents, one page of each, in one statement. */
export interface RankedPagesQuery {
  /** `SELECT <columns>` list of the rows, with the table aliased as the `from` clause says. */
  columns: string;
  /** `FROM …` (with joins) of the rows. */
  from: string;
  /** The column holding the parent id (e.g. `p.attributed_to_id`). */
  parentColumn: string;
  /** `bigint` unless said. */
  parentType?: ParentType;
  /** Every condition of the rows, the parents' (`… = ANY(ARRAY[:parentIds]::bigint[])`) included. */
  where: string;
  /** ORDER BY of one parent's rows. */
  order: string;
  parentIds: readonly string[];
  page: number;
  limit: number;
  replacements: Record<string, unknown>;
}

/**
 * One page of rows of each parent with each parent's total, in one statement: the rows ranked per
 * parent carry their parent's count. A parent whose page comes back empty past the first page (asked
 * beyond its end) or for a limit of 0 is counted apart; an empty first page means none.
 */
export async function rankedPages<T>(
  sequelize: Sequelize,
  query: RankedPagesQuery,
): Promise<Map<string, Page<T>>> {
  const offset = (Math.max(query.page, 1) - 1) * Math.max(query.limit, 0);
  const replacements = { ...query.replacements, first: offset + 1, last: offset + Math.max(query.limit, 0) };
  const rows = await sequelize.query<T & { parentKey: string; position: unknown; parentTotal: string }>(
    `SELECT * FROM (
       SELECT ${query.columns}, ${query.parentColumn}::text AS "parentKey",
         row_number() OVER (PARTITION BY ${query.parentColumn} ORDER BY ${query.order}) AS position,
         count(*) OVER (PARTITION BY ${query.parentColumn}) AS "parentTotal"
       ${query.from} WHERE ${query.where}) ranked
     WHERE position BETWEEN :first AND :last ORDER BY "parentKey", position`,
    { type: QueryTypes.SELECT, replacements },
  );
  const pages = new Map<string, Page<T>>(query.parentIds.map((id) => [id, { elements: [], total: 0 }]));
  for (const { parentKey, position: _position, parentTotal, ...row } of rows) {
    const page = pages.get(parentKey)!;
    page.total = Number(parentTotal);
    page.elements.push(row as unknown as T);
  }
  const unknown =
    offset > 0 || query.limit <= 0
      ? query.parentIds.filter((id) => pages.get(id)!.elements.length === 0)
      : [];
  if (unknown.length > 0) {
    const counts = await sequelize.query<{ parentKey: string; total: number }>(
      `SELECT ${query.parentColumn}::text AS "parentKey", count(*)::int AS total ${query.from}
        WHERE ${query.where} AND ${query.parentColumn} = ANY(ARRAY[:unknownIds]::${query.parentType ?? 'bigint'}[])
        GROUP BY ${query.parentColumn}`,
      { type: QueryTypes.SELECT, replacements: { ...replacements, unknownIds: unknown } },
    );
    for (const { parentKey, total } of counts) pages.get(parentKey)!.total = total;
  }
  return pages;
}

/**
 * A DataLoader of pages of child rows by parent: parents asked for the same scope and page share one
 * statement (`rankedPages`), so a list of groups, folders or todo lists costs no query per parent.
 */
export function pagedByParent<T>(
  sequelize: Sequelize,
  query: PagedQuery,
): DataLoader<PageKey, Page<T>, string> {
  const batchKey = (key: PageKey) => JSON.stringify([key.scope ?? '', key.page, key.limit]);
  const cacheKey = (key: PageKey) => `${batchKey(key)}:${key.parentId}`;
  return new DataLoader(
    async (keys) => {
      const batches = new Map<string, PageKey[]>();
      for (const key of keys) batches.set(batchKey(key), [...(batches.get(batchKey(key)) ?? []), key]);
      const pages = new Map<string, Page<T>>();
      for (const [batch, members] of batches) {
        const { scope = '', page, limit } = members[0]!;
        const extra = query.where(scope);
        const parentIds = members.map((key) => key.parentId);
        const parentType = query.parentType ?? 'bigint';
        const found = await rankedPages<T>(sequelize, {
          columns: query.columns,
          from: query.from,
          parentColumn: query.parentColumn,
          parentType,
          where: `${query.parentColumn} = ANY(ARRAY[:parentIds]::${parentType}[])${extra ? ` AND ${extra}` : ''}`,
          order: query.order,
          parentIds,
          page,
          limit,
          replacements: { parentIds },
        });
        for (const [parentId, found_] of found) pages.set(`${batch}:${parentId}`, found_);
      }
      return keys.map((key) => pages.get(cacheKey(key)) ?? { elements: [], total: 0 });
    },
    { cacheKeyFn: cacheKey },
  );
}
