import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { processEnv } from '@agora/core';
import { ensureDatabase, withClient } from '../database.admin.js';
import { isRunning } from '../embedded/embedded-postgres.launcher.js';
import { createTestDatabase, testServerUrl } from './index.js';

async function databaseExists(name: string): Promise<boolean> {
  return withClient(await testServerUrl(), async (client) => {
    const found = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    return found.rowCount === 1;
  });
}

describe('createTestDatabase', () => {
  it('gives each caller its own empty database, and drop() removes it even with sessions open', async () => {
    const [first, second] = await Promise.all([
      createTestDatabase('isolation'),
      createTestDatabase('isolation'),
    ]);
    const client = new pg.Client({ connectionString: first.url });
    try {
      expect(first.name).to.match(/^agora_test_isolation_[0-9a-f]{10}$/);
      expect(first.name).to.not.equal(second.name);
      await client.connect();
      await client.query('CREATE TABLE only_here (id int)');
      const seen = await withClient(second.url, (other) =>
        other.query("SELECT to_regclass('only_here') AS found"),
      );
      expect(seen.rows[0].found).to.equal(null);

      client.on('error', () => undefined); // the drop ends this session
      await first.drop();
      expect(await databaseExists(first.name)).to.equal(false);
    } finally {
      await client.end().catch(() => undefined);
      await first.drop();
      await second.drop();
    }
    expect(await databaseExists(second.name)).to.equal(false);
  });

  it('creates many at once without collisions', async () => {
    const databases = await Promise.all(Array.from({ length: 8 }, () => createTestDatabase('Many Callers!')));
    try {
      expect(new Set(databases.map((db) => db.name)).size).to.equal(8);
      expect(databases[0]!.name).to.match(/^agora_test_many_callers_/);
      for (const db of databases) expect(await databaseExists(db.name)).to.equal(true);
    } finally {
      await Promise.all(databases.map((db) => db.drop()));
    }
  });

  it('without TEST_DATABASE_URL runs on its own embedded PostgreSQL, which goes away with the process', async function () {
    this.timeout(60_000);
    const testing = new URL('./index.ts', import.meta.url).href;
    const script = `
      import pg from 'pg';
      import { createTestDatabase } from ${JSON.stringify(testing)};
      const db = await createTestDatabase('embedded');
      const client = new pg.Client({ connectionString: db.url });
      await client.connect();
      const { rows } = await client.query("SELECT current_database() AS name, pg_postmaster_start_time() IS NOT NULL AS up, current_setting('data_directory') AS dir, pg_backend_pid() AS backend");
      const { rows: [postmaster] } = await client.query("SELECT pid FROM pg_stat_activity WHERE backend_type = 'checkpointer'");
      await client.end();
      await db.drop();
      console.log(JSON.stringify({ ...rows[0], checkpointer: postmaster.pid, url: db.url }));
    `;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: fileURLToPath(new URL('../..', import.meta.url)),
      env: { ...processEnv(), TEST_DATABASE_URL: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    // Exiting at all proves the cluster does not keep Node alive.
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code, stderr).to.equal(0);
    const result = JSON.parse(stdout.trim()) as {
      name: string;
      up: boolean;
      dir: string;
      checkpointer: number;
      url: string;
    };
    expect(result.name).to.match(/^agora_test_embedded_/);
    expect(result.up).to.equal(true);
    expect(new URL(result.url).hostname).to.equal('127.0.0.1');

    // The exit hook stops the cluster and a watchdog deletes its folder: wait for both, bounded.
    const deadline = Date.now() + 20_000;
    while ((isRunning(result.checkpointer) || existsSync(result.dir)) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(isRunning(result.checkpointer), 'the embedded cluster is still running').to.equal(false);
    expect(existsSync(result.dir), 'the embedded cluster folder is still there').to.equal(false);
  });
});

describe('ensureDatabase', () => {
  it('creates a missing database once, even when many callers race', async () => {
    const serverUrl = await testServerUrl();
    const name = `agora_test_ensure_${Date.now().toString(36)}`;
    try {
      await Promise.all(Array.from({ length: 8 }, () => ensureDatabase(serverUrl, name)));
      expect(await databaseExists(name)).to.equal(true);
      await ensureDatabase(serverUrl, name);
    } finally {
      await withClient(serverUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    }
  });

  it('refuses names PostgreSQL would silently truncate', async () => {
    const error = await ensureDatabase(await testServerUrl(), 'x'.repeat(64)).catch(
      (caught: Error) => caught,
    );
    expect((error as Error).message).to.contain('63 bytes');
  });
});
