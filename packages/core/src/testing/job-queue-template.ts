import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import pg from 'pg';

/**
 * pg-boss's version: part of a template database's key, so a template whose job-queue schema an older
 * pg-boss made is not cloned for a newer one.
 */
export function jobQueueVersion(): string {
  let dir = dirname(createRequire(import.meta.url).resolve('pg-boss'));
  for (;;) {
    try {
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
        name?: string;
        version?: string;
      };
      if (manifest.name === 'pg-boss') return `pg-boss@${manifest.version}`;
    } catch {
      // no package.json here: look further up
    }
    const parent = dirname(dir);
    if (parent === dir) return 'pg-boss@unknown';
    dir = parent;
  }
}

/**
 * Leaves the job queue of database `url` as a first start leaves it (schema and queues) but without
 * jobs or maintenance times, so a template made by booting a service once starts every copy afresh.
 */
export async function emptyJobQueue(url: string, schema = 'pgboss'): Promise<void> {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(schema)) throw new Error(`Invalid job queue schema name "${schema}"`);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (const table of ['job', 'archive']) {
      const { rows } = await client.query<{ found: string | null }>('SELECT to_regclass($1) AS found', [
        `${schema}.${table}`,
      ]);
      if (rows[0]?.found) await client.query(`DELETE FROM ${schema}.${table}`);
    }
    const { rows: stamps } = await client.query<{ column: string }>(
      `SELECT column_name AS column FROM information_schema.columns
        WHERE table_schema = $1 AND table_name = 'version' AND data_type = 'timestamp with time zone'`,
      [schema],
    );
    if (stamps.length) {
      const reset = stamps.map(({ column }) => `"${column}" = NULL`).join(', ');
      await client.query(`UPDATE ${schema}.version SET ${reset}`);
    }
  } finally {
    await client.end();
  }
}
