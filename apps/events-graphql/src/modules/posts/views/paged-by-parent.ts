import DataLoader from 'dataloader';
import { QueryTypes, type Sequelize } from 'sequelize';

export interface Page<T> {
  elements: T[];
  total: number;
}

/** What a page query names: its parent row, a variant of the rules (`scope`), and the page. */
export interface PageKey {
  parentId: string;
  scope: string;
  page: number;
  limit: number;
}

export interface PagedQuery {
  /** `SELECT <columns>` list of the rows, with the table aliased as the `from` clause says. */
  columns: string;
  /** `FROM …` (with joins) of the rows. */
  from: string;
  /** The column holding the parent id (e.g. `p.attributed_to_id`). */
  parentColumn: string;
  /** Extra conditions of a scope (`''` for none). */
  where: (scope: string) => string;
  /** ORDER BY of one parent's rows. */
  order: string;
}

/**
 * A DataLoader of pages of child rows by parent: parents asked for the same scope and page share two
 * queries (the rows ranked per parent, and the counts), so a list of groups costs no query per group.
 */
export function pagedByParent<T>(
  sequelize: Sequelize,
  query: PagedQuery,
): DataLoader<PageKey, Page<T>, string> {
  const batchKey = (key: PageKey) => JSON.stringify([key.scope, key.page, key.limit]);
  const cacheKey = (key: PageKey) => `${batchKey(key)}:${key.parentId}`;
  return new DataLoader(
    async (keys) => {
      const batches = new Map<string, PageKey[]>();
      for (const key of keys) batches.set(batchKey(key), [...(batches.get(batchKey(key)) ?? []), key]);
      const pages = new Map<string, Page<T>>();
      for (const [batch, members] of batches) {
        const { scope, page, limit } = members[0]!;
        const offset = (Math.max(page, 1) - 1) * Math.max(limit, 0);
        const extra = query.where(scope);
        const where = `${query.parentColumn} = ANY(ARRAY[:parentIds]::bigint[])${extra ? ` AND ${extra}` : ''}`;
        const replacements = {
          parentIds: [...members.map((key) => key.parentId), '0'],
          first: offset + 1,
          last: offset + Math.max(limit, 0),
        };
        const [rows, counts] = await Promise.all([
          sequelize.query<T & { parentKey: string; position: unknown }>(
            `SELECT * FROM (
               SELECT ${query.columns}, ${query.parentColumn}::text AS "parentKey",
                 row_number() OVER (PARTITION BY ${query.parentColumn} ORDER BY ${query.order}) AS position
               ${query.from} WHERE ${where}) ranked
             WHERE position BETWEEN :first AND :last ORDER BY "parentKey", position`,
            { type: QueryTypes.SELECT, replacements },
          ),
          sequelize.query<{ parentKey: string; total: number }>(
            `SELECT ${query.parentColumn}::text AS "parentKey", count(*)::int AS total ${query.from}
              WHERE ${where} GROUP BY ${query.parentColumn}`,
            { type: QueryTypes.SELECT, replacements },
          ),
        ]);
        for (const key of members) pages.set(`${batch}:${key.parentId}`, { elements: [], total: 0 });
        for (const { parentKey, total } of counts) pages.get(`${batch}:${parentKey}`)!.total = total;
        for (const { parentKey, position: _position, ...row } of rows) {
          pages.get(`${batch}:${parentKey}`)!.elements.push(row as unknown as T);
        }
      }
      return keys.map((key) => pages.get(cacheKey(key)) ?? { elements: [], total: 0 });
    },
    { cacheKeyFn: cacheKey },
  );
}
