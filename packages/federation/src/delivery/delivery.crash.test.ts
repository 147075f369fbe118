import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import { PgBoss } from 'pg-boss';
import { createLogger, createPgBossQueue, type JobQueue } from '@agora/core';
import { createSequelize, runMigrations, type Sequelize } from '@agora/db';
import { withTestDatabase } from '@agora/db/testing';
import { ActorStore, type Actor } from '../actors/index.js';
import { createGuardedFetch, type GuardedFetch } from '../fetch/index.js';
import { federationMigrationSet } from '../migrations/index.js';
import { DeliveryService } from './delivery.service.js';
import type { DeliveryTiming } from './delivery.policy.js';
import { startLoopbackInbox, type LoopbackInbox } from './loopback-inbox.testing.js';

const SCHEMA = 'delivery_crash';
const TOTAL = 50;
const KILL_AFTER_HITS = 15;
// A killed worker's jobs count as failed after this, and then run again.
const timing: DeliveryTiming = { attemptTimeoutSeconds: 2, crashRetryDelaySeconds: 0, retryBaseSeconds: 0 };
const silent = createLogger({ name: 'delivery-crash-test', level: 'silent' });

describe('delivery when a worker process is killed', function () {
  const database = withTestDatabase('federation_delivery_crash', {
    family: 'federation',
    sets: () => [federationMigrationSet()],
  });
  let sequelize: Sequelize;
  let actors: ActorStore;
  let fetch: GuardedFetch;
  let alice: Actor;
  let inbox: LoopbackInbox | undefined;
  let child: ChildProcess | undefined;
  const queues: JobQueue[] = [];
  let supervisor: PgBoss | undefined;

  before(async () => {
    sequelize = createSequelize({ url: database.url, poolMax: 4 });
    await runMigrations(sequelize, [federationMigrationSet()]);
    actors = new ActorStore({
      sequelize,
      urls: ({ username }) => ({
        uri: `https://local.test/@${username}`,
        url: null,
        inboxUrl: `https://local.test/@${username}/inbox`,
        outboxUrl: null,
        sharedInboxUrl: null,
        followersUrl: null,
        followingUrl: null,
        endpoints: {},
      }),
    });
    alice = await actors.createLocal({ type: 'Person', username: 'alice' });
    await actors.ensureKeys(alice.id);
    fetch = createGuardedFetch({ userAgent: 'agora-test', allowPrivateHosts: ['127.0.0.1'] });
  });

  after(async () => {
    child?.kill('SIGKILL');
    await Promise.all(queues.map((queue) => queue.stop()));
    await supervisor?.stop({ graceful: false });
    await inbox?.close();
    fetch?.close();
    await sequelize?.close();
  });

  function queue(role: 'web' | 'all'): JobQueue {
    const created = createPgBossQueue({
      connectionString: database.url,
      logger: silent,
      role,
      schema: SCHEMA,
      pollingIntervalSeconds: 0.5,
      stopTimeoutMs: 1000,
    });
    queues.push(created);
    return created;
  }

  it('loses no delivery when the worker is SIGKILLed mid-batch: a second worker finishes them', async () => {
    let killed!: () => void;
    const killedNow = new Promise<void>((resolve) => (killed = resolve));
    inbox = await startLoopbackInbox({
      delayMs: 150,
      onHit: () => {
        if (inbox && inbox.hits.length === KILL_AFTER_HITS) {
          child?.kill('SIGKILL');
          killed();
        }
      },
    });

    // The web role creates the queue schema and enqueues; the child process is the only worker.
    const web = queue('web');
    await web.start();
    const sender = new DeliveryService({ queue: web, sequelize, actors, fetch, logger: silent, timing });
    child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        fileURLToPath(new URL('./delivery-worker.fixture.ts', import.meta.url)),
        JSON.stringify({ databaseUrl: database.url, schema: SCHEMA, concurrency: 10, timing }),
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const exited = once(child, 'exit');
    const [ready] = (await Promise.race([once(child.stdout!, 'data'), exited])) as [Buffer | number];
    expect(String(ready)).to.include('ready');

    for (let n = 0; n < TOTAL; n += 1) {
      await sender.deliver(
        { id: `https://local.test/activities/${n}`, type: 'Create', actor: alice.uri },
        { senderActorId: alice.id, recipients: [{ inboxUrl: `${inbox.origin}/inbox` }] },
      );
    }
    await killedNow;
    const [, signal] = (await exited) as [number | null, string | null];
    expect(signal).to.equal('SIGKILL');
    const seenBeforeKill = new Set(inbox.hits.map((hit) => hit.activityId)).size;
    expect(seenBeforeKill).to.be.below(TOTAL);

    // A second worker, and pg-boss supervision (every minute in production; every second here) to expire the dead one's jobs.
    supervisor = new PgBoss({
      connectionString: database.url,
      schema: SCHEMA,
      supervise: true,
      schedule: false,
      migrate: false,
      maintenanceIntervalSeconds: 1,
      superviseIntervalSeconds: 1,
      monitorIntervalSeconds: 1,
    });
    supervisor.on('error', () => undefined);
    await supervisor.start();
    const worker = queue('all');
    const deliveries = new DeliveryService({
      queue: worker,
      sequelize,
      actors,
      fetch,
      logger: silent,
      timing,
    });
    await deliveries.registerWorker({ concurrency: 10 });
    await worker.start();
    await deliveries.drain(30_000);

    const ids = new Set(inbox.hits.map((hit) => hit.activityId));
    expect(ids.size).to.equal(TOTAL);
    // The requests in flight at the kill ran again once their jobs expired: at least once, not exactly once.
    expect(inbox.hits.length).to.be.above(TOTAL);
    expect(await deliveries.listDeadLetters()).to.deep.equal([]);
  });
});
