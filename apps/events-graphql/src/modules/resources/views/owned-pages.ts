import { QueryTypes, type Sequelize } from 'sequelize';

export interface Page<T> {
  elements: T[];
  total: number;
}

export interface OwnedPagesQuery {
  /** `FROM …` with the alias the columns and `order` use. */
  from: string;
  /** The column that names the owner (a group, a folder, a list), compared as text. */
  owner: string;
  columns: string;
  order: string;
  /** Extra condition on the rows, e.g. top-level resources only. */
  where?: string;
}

/**
 * One page of rows for each of many owners in two statements (the rows, ranked per owner; the counts),
 * so a list of groups, folders or todo lists asking for their pages costs the same as one.
 */
export async function ownedPages<T>(
  sequelize: Sequelize,
  query: OwnedPagesQuery,
  owners: readonly string[],
  page: number,
  limit: number,
): Promise<Map<string, Page<T>>> {
  const pages = new Map<string, Page<T>>(owners.map((owner) => [owner, { elements: [], total: 0 }]));
  if (owners.length === 0) return pages;
  const where = `${query.owner}::text = ANY(ARRAY[:owners]::text[])${query.where ? ` AND ${query.where}` : ''}`;
  const offset = (Math.max(page, 1) - 1) * Math.max(limit, 0);
  const [rows, counts] = await Promise.all([
    limit <= 0
      ? Promise.resolve([])
      : sequelize.query<T & { pageOwner: string }>(
          `SELECT * FROM (
             SELECT ${query.columns}, ${query.owner}::text AS "pageOwner",
               row_number() OVER (PARTITION BY ${query.owner} ORDER BY ${query.order}) AS "pageRank"
             FROM ${query.from} WHERE ${where}) ranked
           WHERE "pageRank" > :offset AND "pageRank" <= :end ORDER BY "pageOwner", "pageRank"`,
          { type: QueryTypes.SELECT, replacements: { owners: [...owners], offset, end: offset + limit } },
        ),
    sequelize.query<{ owner: string; total: string }>(
      `SELECT ${query.owner}::text AS owner, count(*) AS total FROM ${query.from} WHERE ${where} GROUP BY 1`,
      { type: QueryTypes.SELECT, replacements: { owners: [...owners] } },
    ),
  ]);
  for (const row of rows) {
    const { pageOwner, pageRank: _rank, ...element } = row as T & { pageOwner: string; pageRank: unknown };
    pages.get(pageOwner)?.elements.push(element as T);
  }
  for (const { owner, total } of counts) {
    const found = pages.get(owner);
    if (found) found.total = Number(total);
  }
  return pages;
}

/** The key of a batched page request: owners share a batch when they ask for the same page. */
export interface PageKey {
  owner: string;
  page: number;
  limit: number;
}

/** Splits a DataLoader batch by (page, limit), runs each group as one `ownedPages`, answers in order. */
export async function loadOwnedPages<T>(
  keys: readonly PageKey[],
  load: (owners: string[], page: number, limit: number) => Promise<Map<string, Page<T>>>,
): Promise<Array<Page<T>>> {
  const groups = new Map<string, { page: number; limit: number; owners: string[] }>();
  for (const key of keys) {
    const name = `${key.page}:${key.limit}`;
    const group = groups.get(name) ?? { page: key.page, limit: key.limit, owners: [] };
    group.owners.push(key.owner);
    groups.set(name, group);
  }
  const answers = new Map<string, Map<string, Page<T>>>();
  for (const [name, group] of groups) answers.set(name, await load(group.owners, group.page, group.limit));
  return keys.map(
    (key) => answers.get(`${key.page}:${key.limit}`)?.get(key.owner) ?? { elements: [], total: 0 },
  );
}

export const pageKeyOf = (key: PageKey): string => `${key.owner}:${key.page}:${key.limit}`;
