import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { testSettings } from '../config/service.js';

/**
 * A fresh, uniquely named database for one test file of this package. `@agora/db/testing` offers the
 * same for everyone else, but core cannot import it: `@agora/db` depends on core.
 */
export async function createScratchDatabase(): Promise<{ url: string; name: string; drop(): Promise<void> }> {
  const serverUrl = testSettings().databaseUrl;
  if (!serverUrl) throw new Error('Set TEST_DATABASE_URL (a PostgreSQL server URL) to run the core tests');
  const name = `agora_core_test_${randomBytes(6).toString('hex')}`;
  await withAdmin(serverUrl, (client) => client.query(`CREATE DATABASE ${name}`));
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    // FORCE also ends connections a failed test left open (PostgreSQL 13+).
    drop: () =>
      withAdmin(serverUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)),
  };
}

async function withAdmin(serverUrl: string, action: (client: pg.Client) => Promise<unknown>): Promise<void> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await action(client);
  } finally {
    await client.end();
  }
}
