import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { Logger } from '@agora/core';
import type { BenchConfig, DatabaseSource } from './config.js';
import { freePort } from './processes.js';

/** The PostgreSQL server the bench runs on, and the databases it created there. */
export interface BenchPostgres {
  readonly source: DatabaseSource;
  readonly serverVersion: string;
  /** Creates a fresh, empty database and returns its URL. */
  createDatabase(label: string): Promise<string>;
  /** Drops every database created here, then stops the embedded server if one was started. */
  close(): Promise<void>;
}

/** A lower-case identifier that needs no quoting rules beyond double quotes. */
export function benchDatabaseName(label: string, now = new Date(), pid = process.pid): string {
  const stamp = now.toISOString().replace(/[-:T]/g, '').slice(0, 14);
  const clean = label.toLowerCase().replace(/[^a-z0-9]+/g, '_');
  return `agora_bench_${stamp}_${pid}_${clean}`.slice(0, 63);
}

export function databaseUrl(serverUrl: string, database: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

export async function obtainPostgres(config: BenchConfig, logger: Logger): Promise<BenchPostgres> {
  let adminUrl: string;
  let stopServer: () => Promise<void> = async () => {};
  if (config.database.url) {
    adminUrl = config.database.url;
  } else {
    // Loaded only here: with a database URL the bench needs none of @agora/db.
    const db = await import('@agora/db').catch((error: Error) => {
      throw new Error(
        `no BENCH_DATABASE_URL or TEST_DATABASE_URL, and @agora/db (embedded PostgreSQL) is not available — run pnpm build (${error.message})`,
      );
    });
    // A throwaway cluster: the bench never touches the project's own data folder.
    const dataDir = await mkdtemp(join(tmpdir(), 'agora-bench-pg-'));
    const embedded = await db
      .startEmbeddedPostgres({ dataDir, port: await freePort(), logger })
      .catch(async (error: Error) => {
        await rm(dataDir, { recursive: true, force: true });
        throw new Error(`embedded PostgreSQL did not start: ${error.message}`);
      });
    adminUrl = embedded.adminUrl;
    stopServer = async () => {
      await embedded.stop();
      await rm(dataDir, { recursive: true, force: true });
    };
  }

  const created: string[] = [];
  let serverVersion: string;
  try {
    serverVersion = await withClient(adminUrl, async (client) => {
      const result = await client.query<{ server_version: string }>('SHOW server_version');
      return result.rows[0]?.server_version ?? 'unknown';
    });
  } catch (error) {
    await stopServer();
    throw new Error(`cannot reach PostgreSQL (${config.database.source}): ${(error as Error).message}`);
  }

  return {
    source: config.database.source,
    serverVersion,
    async createDatabase(label) {
      const name = benchDatabaseName(label);
      await withClient(adminUrl, (client) => client.query(`CREATE DATABASE "${name}"`));
      created.push(name);
      return databaseUrl(adminUrl, name);
    },
    async close() {
      const problems: string[] = [];
      // BENCH_KEEP_DATABASES=1 leaves them (on a server of your own) to EXPLAIN the scenario's statements.
      if (created.length > 0 && process.env.BENCH_KEEP_DATABASES === '1') {
        console.log(`kept databases: ${created.splice(0).join(', ')}`);
      }
      if (created.length > 0) {
        await withClient(adminUrl, async (client) => {
          for (const name of created.splice(0)) {
            // FORCE ends connections a killed server may have left behind.
            await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).catch((error: Error) => {
              problems.push(`drop ${name}: ${error.message}`);
            });
          }
        }).catch((error: Error) => problems.push(`drop databases: ${error.message}`));
      }
      await stopServer().catch((error: Error) => problems.push(`stop embedded PostgreSQL: ${error.message}`));
      if (problems.length > 0) throw new Error(problems.join('; '));
    },
  };
}
