import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres } from '@agora/db';
import { freePort, LAUNCHER_SCRIPT, runScript } from './processes.js';

// Its own file: what it tests is a second start of the launcher, on the first one's data.
describe('npm start: the embedded PostgreSQL', function () {
  this.timeout(180_000);

  it('without DATABASE_URL starts an embedded PostgreSQL whose data survives the next start', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'agora-e2e-'));
    const pgPort = await freePort();
    const env = {
      DATA_DIR: dataDir,
      EMBEDDED_PG_PORT: String(pgPort),
      EVENTS_PORT: String(await freePort()),
      MICROBLOG_PORT: String(await freePort()),
      LOG_LEVEL: 'warn',
    };
    const inspect = async (work: (client: pg.Client) => Promise<void>) => {
      const cluster = await startEmbeddedPostgres({ dataDir: join(dataDir, 'postgres'), port: pgPort });
      const client = new pg.Client({ connectionString: cluster.url('agora_events') });
      await client.connect();
      try {
        await work(client);
      } finally {
        await client.end();
        await cluster.stop();
      }
    };
    try {
      const first = runScript(LAUNCHER_SCRIPT, [], env);
      await first.waitFor('Press Ctrl-C to stop.');
      expect(first.output()).to.contain(`embedded, port ${pgPort}`);
      first.child.kill('SIGINT');
      expect(await first.exited).to.equal(0);

      await inspect(async (client) => {
        const migrations = await client.query('SELECT count(*)::int AS n FROM agora_migrations');
        expect(migrations.rows[0].n).to.be.greaterThan(0);
        await client.query('CREATE TABLE e2e_marker (note text)');
        await client.query("INSERT INTO e2e_marker VALUES ('kept')");
      });

      const second = runScript(LAUNCHER_SCRIPT, [], env);
      await second.waitFor('Press Ctrl-C to stop.');
      second.child.kill('SIGINT');
      expect(await second.exited).to.equal(0);

      await inspect(async (client) => {
        const marker = await client.query('SELECT note FROM e2e_marker');
        expect(marker.rows).to.deep.equal([{ note: 'kept' }]);
      });
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
