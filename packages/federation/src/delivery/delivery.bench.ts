// Delivery throughput against the signing ceiling. Run: `node --import tsx src/delivery/delivery.bench.ts`
// (PostgreSQL from TEST_DATABASE_URL, else an embedded one). Not a test: it prints figures.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { generateKeyPairSync, sign } from 'node:crypto';
import { createLogger, createPgBossQueue, type Job, type JobHandler, type JobQueue } from '@agora/core';
import { createSequelize, runMigrations } from '@agora/db';
import { createTestDatabase } from '@agora/db/testing';
import { ActorStore } from '../actors/index.js';
import { createGuardedFetch } from '../fetch/index.js';
import { federationMigrationSet } from '../migrations/index.js';
import { signRequest } from '../signatures/index.js';
import { DELIVERY_JOB, DeliveryService } from './delivery.service.js';

const DELIVERIES = 2000;
const print = (line: string): void => void process.stdout.write(`${line}\n`);

/** (a) RSA-2048 signatures per second on this thread, raw and as a full signed request. */
function signingCeiling(seconds: number): { raw: number; request: number } {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const data = Buffer.from('(request-target): post /inbox\nhost: remote.test\ndate: x\ndigest: SHA-256=abc');
  const measure = (run: () => void): number => {
    let count = 0;
    const start = performance.now();
    while (performance.now() - start < seconds * 1000) {
      run();
      count += 1;
    }
    return count / ((performance.now() - start) / 1000);
  };
  const body = JSON.stringify({
    id: 'https://local.test/a/1',
    type: 'Create',
    object: { content: 'x'.repeat(500) },
  });
  return {
    raw: measure(() => sign('sha256', data, privateKey)),
    request: measure(() =>
      signRequest(
        {
          method: 'POST',
          url: 'http://127.0.0.1:1/inbox',
          headers: { 'content-type': 'application/activity+json' },
          body,
        },
        { keyId: 'https://local.test/@a#main-key', privateKey },
      ),
    ),
  };
}

/** A loopback inbox in its own process, so it takes no CPU from the worker being measured. */
async function startInboxProcess(): Promise<{ origin: string; stop: () => void }> {
  const code = `const s=require('node:http').createServer((q,r)=>{q.resume();q.on('end',()=>r.writeHead(202).end())});
    s.keepAliveTimeout=60000;s.listen(0,'127.0.0.1',()=>process.stdout.write(String(s.address().port)+'\\n'));`;
  const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  const [port] = (await once(child.stdout, 'data')) as [Buffer];
  return { origin: `http://127.0.0.1:${String(port).trim()}`, stop: () => child.kill() };
}

/** Bench-only: after each job every slot skips its polling pause, as a fixed core adapter would (see the report). */
function rewakingQueue(queue: JobQueue): JobQueue {
  const internals = queue as unknown as {
    boss: { notifyWorker(id: string): void };
    localWorkers: Map<string, Array<{ id: string }>>;
  };
  const wakeAll = (name: string): void => {
    for (const worker of internals.localWorkers.get(name) ?? []) internals.boss.notifyWorker(worker.id);
  };
  return Object.assign(Object.create(queue) as JobQueue, {
    work: (name: string, handler: JobHandler<object>, options?: { concurrency?: number }) =>
      queue.work(
        name,
        async (job: Job<object>) => {
          await handler(job);
          wakeAll(name);
        },
        options,
      ),
  });
}

async function main(): Promise<void> {
  const ceiling = signingCeiling(3);
  print(
    `(a) RSA-2048 signing ceiling, one thread: ${ceiling.raw.toFixed(0)} sig/s raw, ${ceiling.request.toFixed(0)} signed requests/s`,
  );

  const database = await createTestDatabase('delivery_bench');
  const sequelize = createSequelize({ url: database.url, poolMax: 10 });
  const inbox = await startInboxProcess();
  const logger = createLogger({ name: 'delivery-bench', level: 'silent' });
  const fetch = createGuardedFetch({ userAgent: 'agora-bench', allowPrivateHosts: ['127.0.0.1'] });
  let schemas = 0;
  try {
    await runMigrations(sequelize, [federationMigrationSet()]);
    const actors = new ActorStore({
      sequelize,
      urls: ({ username }) => ({
        uri: `https://local.test/@${username}`,
        url: null,
        inboxUrl: null,
        outboxUrl: null,
        sharedInboxUrl: null,
        followersUrl: null,
        followingUrl: null,
        endpoints: {},
      }),
    });
    const alice = await actors.createLocal({ type: 'Person', username: 'alice' });
    await actors.ensureKeys(alice.id);

    const run = async (
      label: string,
      concurrency: number,
      rewake: boolean,
      inboxes: number,
      batchSize = 50,
    ): Promise<number> => {
      schemas += 1;
      const raw = createPgBossQueue({
        connectionString: database.url,
        logger,
        role: 'all',
        schema: `bench_q${schemas}`,
        pollingIntervalSeconds: 0.5,
        poolMax: 10,
      });
      const queue = rewake ? rewakingQueue(raw) : raw;
      const deliveries = new DeliveryService({ queue, sequelize, actors, fetch, logger, batchSize });
      await raw.start();
      const enqueueStart = performance.now();
      const perActivity = DELIVERIES / inboxes;
      for (let n = 0; n < perActivity; n += 1) {
        const recipients = Array.from({ length: inboxes }, (_, i) => ({
          inboxUrl: `${inbox.origin}/users/u${i}/inbox`,
        }));
        await deliveries.deliver(
          {
            id: `https://local.test/a/${schemas}-${n}`,
            type: 'Create',
            object: { content: 'x'.repeat(500) },
          },
          {
            senderActorId: alice.id,
            recipients,
          },
        );
      }
      const enqueueSeconds = (performance.now() - enqueueStart) / 1000;
      const start = performance.now();
      const cpuBefore = process.cpuUsage();
      await deliveries.registerWorker({ concurrency });
      await raw.drain([DELIVERY_JOB], 600_000);
      const seconds = (performance.now() - start) / 1000;
      const cpu = process.cpuUsage(cpuBefore);
      const rate = DELIVERIES / seconds;
      await raw.stop();
      print(
        `(b) ${label}: ${rate.toFixed(0)} deliveries/s (ratio ${(rate / ceiling.request).toFixed(2)}), worker CPU ${((cpu.user + cpu.system) / 1e4 / seconds).toFixed(0)} %; enqueued at ${(DELIVERIES / enqueueSeconds).toFixed(0)} deliveries/s`,
      );
      return rate;
    };

    // One job per inbox: the core adapter's slots pause one polling interval (0.5 s) after each job.
    for (const concurrency of [20, 50]) {
      await run(`one inbox per job, ${concurrency} jobs at once`, concurrency, false, 200, 1);
    }
    await run('one inbox per job, 50 jobs at once, slots re-woken (core fix)', 50, true, 200, 1);
    // The shipped default: 50 inboxes per job, 10 POSTs in flight per job.
    for (const concurrency of [1, 2, 5, 20]) {
      await run(`50 inboxes per job, ${concurrency} job(s) at once`, concurrency, false, 200);
    }
    // Shared inboxes: followers behind 20 shared inboxes cost 20 POSTs per activity, however many they are.
    const shared = await run('20 shared inboxes per activity, 5 jobs at once', 5, false, 20);
    print(
      `    with 100 followers behind each shared inbox: ${(shared * 100).toFixed(0)} followers reached/s`,
    );
  } finally {
    fetch.close();
    inbox.stop();
    await sequelize.close();
    await database.drop();
  }
}

await main();
