import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres } from '@agora/db';
import { createTestDatabase } from '@agora/db/testing';
import { freePort, graphql, runScript } from './processes.js';

const LAUNCHER = 'tooling/src/dev/start.ts';

async function expectClosed(port: number): Promise<void> {
  let reached = true;
  try {
    await fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(2000) });
  } catch {
    reached = false;
  }
  expect(reached, `port ${port} still answers after stop`).to.equal(false);
}

/** Polls until nothing answers on `port` (another process is shutting down), or fails after `timeoutMs`. */
async function waitClosed(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(1000) });
    } catch {
      return;
    }
    if (Date.now() > deadline)
      throw new Error(`port ${port} still answers ${timeoutMs} ms after the launcher died`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** `npm start`'s launcher on two fresh test databases and free ports (the caller drops the databases). */
async function launchOnTestDatabases(label: string) {
  const eventsDb = await createTestDatabase(`${label}_events`);
  const microblogDb = await createTestDatabase(`${label}_microblog`);
  const [eventsPort, microblogPort] = [await freePort(), await freePort()];
  const launcher = runScript(LAUNCHER, [], {
    EVENTS_DATABASE_URL: eventsDb.url,
    MICROBLOG_DATABASE_URL: microblogDb.url,
    EVENTS_PORT: String(eventsPort),
    MICROBLOG_PORT: String(microblogPort),
    LOG_LEVEL: 'warn',
  });
  return { launcher, eventsPort, microblogPort, eventsDb, microblogDb };
}

describe('npm start: both services as real processes', function () {
  this.timeout(180_000);

  it('leaves no service running when the launcher itself is killed with SIGKILL', async () => {
    const { launcher, eventsPort, microblogPort, eventsDb, microblogDb } =
      await launchOnTestDatabases('e2e_kill');
    try {
      await launcher.waitFor('Press Ctrl-C to stop.');
      expect((await fetch(`http://127.0.0.1:${eventsPort}/health`)).status).to.equal(200);
      launcher.child.kill('SIGKILL');
      await launcher.exited;
      await waitClosed(eventsPort, 20_000);
      await waitClosed(microblogPort, 20_000);
    } finally {
      await eventsDb.drop();
      await microblogDb.drop();
    }
  });

  it('serves GraphQL and REST against given databases, and Ctrl-C stops everything cleanly', async () => {
    const { launcher, eventsPort, microblogPort, eventsDb, microblogDb } = await launchOnTestDatabases('e2e');
    try {
      await launcher.waitFor('Press Ctrl-C to stop.');
      expect(launcher.output()).to.contain(`http://localhost:${eventsPort}/api`);
      expect(launcher.output()).to.contain(`http://localhost:${microblogPort}/api/v1/instance`);

      const events = `http://127.0.0.1:${eventsPort}`;
      const microblog = `http://127.0.0.1:${microblogPort}`;
      for (const base of [events, microblog]) {
        const health = await fetch(`${base}/health`);
        expect(health.status).to.equal(200);
        expect(await health.json()).to.deep.include({ status: 'ok', database: 'ok' });
      }

      const result = await graphql(events, '{ config { name registrationsOpen uploadLimits { default } } }');
      expect(result.errors).to.equal(undefined);
      const config = result.data?.config as { name: string; uploadLimits: { default: number } };
      expect(config.name).to.be.a('string').and.not.empty;
      expect(config.uploadLimits.default).to.equal(10_485_760);

      const instance = await fetch(`${microblog}/api/v1/instance`);
      expect(instance.status).to.equal(200);
      const body = (await instance.json()) as { uri: string; urls: { streaming_api: string } };
      expect(body.uri).to.equal(`localhost:${microblogPort}`);
      expect(body.urls.streaming_api).to.match(/^wss?:\/\//);

      const missing = await fetch(`${microblog}/api/v1/nothing-here`);
      expect(missing.status).to.equal(404);
      expect(await missing.json()).to.deep.equal({ error: 'Record not found' });

      launcher.child.kill('SIGINT');
      expect(await launcher.exited).to.equal(0);
      await expectClosed(eventsPort);
      await expectClosed(microblogPort);
    } finally {
      launcher.child.kill('SIGKILL');
      await eventsDb.drop();
      await microblogDb.drop();
    }
  });

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
      const first = runScript(LAUNCHER, [], env);
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

      const second = runScript(LAUNCHER, [], env);
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
