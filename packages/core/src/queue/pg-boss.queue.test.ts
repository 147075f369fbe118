import { Writable } from 'node:stream';
import { expect } from 'chai';
import pg from 'pg';
import { pino } from 'pino';
import type { Role } from '../config/service.js';
import { createLogger, type Logger } from '../logger/logger.js';
import { createScratchDatabase } from '../testing/scratch-database.js';
import { createPgBossQueue, type Job, type JobQueue } from './index.js';

describe('job queue on pg-boss', () => {
  let database: Awaited<ReturnType<typeof createScratchDatabase>>;
  const running: JobQueue[] = [];
  const silent = createLogger({ level: 'silent', name: 'queue-test' });

  async function startQueue(
    role: Role,
    logger: Logger = silent,
    pollingIntervalSeconds = 0.5,
    concurrency = 2,
  ): Promise<JobQueue> {
    const queue = createPgBossQueue({
      connectionString: database.url,
      logger,
      role,
      concurrency,
      pollingIntervalSeconds,
      stopTimeoutMs: 1000,
    });
    running.push(queue);
    await queue.start();
    return queue;
  }

  before(async () => {
    database = await createScratchDatabase();
  });

  afterEach(async () => {
    await Promise.all(running.splice(0).map((queue) => queue.stop()));
  });

  after(async () => {
    await database?.drop();
  });

  it('runs a sent job once, in this process, on role "all"', async () => {
    const queue = await startQueue('all');
    const seen: Array<Job<{ greeting: string }>> = [];
    await queue.work<{ greeting: string }>('greet', async (job) => {
      seen.push(job);
    });

    const id = await queue.send('greet', { greeting: 'hello' });
    await queue.drain(['greet']);

    expect(seen).to.have.length(1);
    expect(seen[0]).to.deep.include({ id, name: 'greet', data: { greeting: 'hello' }, retryCount: 0 });
  });

  it('runs a job sent to an idle worker, and a backlog back to back, without waiting for a poll', async () => {
    // A poll every 10 minutes: only the wake-up of a local send (and of a finished job) can start these.
    const queue = await startQueue('all', silent, 600);
    const order: number[] = [];
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await queue.work<{ n: number }>(
      'wake',
      async (job) => {
        order.push(job.data.n);
        if (job.data.n === 1) await held;
      },
      { concurrency: 1 },
    );
    // The worker's first look found nothing; it now sleeps its interval.
    await new Promise((resolve) => setTimeout(resolve, 200));
    await queue.send('wake', { n: 1 });
    while (order.length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    // Sent while the only slot is busy: they wait for it, not for a poll.
    await queue.send('wake', { n: 2 });
    await queue.send('wake', { n: 3 });
    release();
    await queue.drain(['wake'], 20_000);
    expect(order).to.deep.equal([1, 2, 3]);
  });

  it('runs a burst of local sends without waiting for a poll, however many land on one slot', async () => {
    // A poll every 10 minutes: each job must be started by a wake-up, though the sends outnumber the
    // idle slots and several reach a slot while it is still fetching.
    const queue = await startQueue('all', silent, 600, 2);
    const ran: number[] = [];
    await queue.work<{ n: number }>('burst', async (job) => {
      ran.push(job.data.n);
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    await Promise.all(Array.from({ length: 40 }, (_, n) => queue.send('burst', { n })));
    await queue.drain(['burst'], 5000);
    expect(ran.sort((a, b) => a - b)).to.deep.equal(Array.from({ length: 40 }, (_, n) => n));
  });

  it('keeps jobs queued on role "web" until a worker on the same database runs them', async () => {
    const web = await startQueue('web');
    let ranOnWeb = 0;
    await web.work('deliver', async () => {
      ranOnWeb += 1;
    });
    await web.send('deliver', { n: 1 });
    await web.send('deliver', { n: 2 });

    let pendingError: unknown;
    await web.drain(['deliver'], 300).catch((err: unknown) => (pendingError = err));
    expect(String(pendingError)).to.include('still pending: deliver: 2');

    const worker = await startQueue('worker');
    const ranOnWorker: number[] = [];
    await worker.work<{ n: number }>('deliver', async (job) => {
      ranOnWorker.push(job.data.n);
    });
    await web.drain(['deliver']);

    expect(ranOnWorker.sort()).to.deep.equal([1, 2]);
    expect(ranOnWeb).to.equal(0);
  });

  it('runs jobs sent by another process within a polling interval, spread over every slot', async () => {
    const web = await startQueue('web');
    for (let n = 1; n <= 3; n += 1) await web.send('remote', { n });
    // Each slot's own poll is an hour away: only the queue's poll (0.5 s) and the wake-ups it starts
    // can pick these up, and the three run together only if the first job woke the other slots.
    const worker = await startQueue('worker', silent, 0.5, 3);
    const started: number[] = [];
    let release!: () => void;
    const together = new Promise<void>((resolve) => (release = resolve));
    const sentAt = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 300));
    await worker.work<{ n: number }>('remote', async (job) => {
      started.push(job.data.n);
      if (started.length === 3) release();
      await together;
    });
    // After start-up, each new job from elsewhere still waits at most one interval (plus its fetch).
    const late = await web.send('remote', { n: 4 });
    const lateSentAt = Date.now();
    await Promise.race([together, new Promise((resolve) => setTimeout(resolve, 5000))]);
    expect(started.slice(0, 3).sort()).to.deep.equal([1, 2, 3]);
    await web.drain(['remote'], 5000);
    expect(started).to.include(4);
    expect(late).to.be.a('string');
    expect(Date.now() - lateSentAt).to.be.below(3000);
    expect(Date.now() - sentAt).to.be.below(10_000);
  });

  it('looks for jobs once per polling interval on an idle queue, not once per slot', async () => {
    const fetches: string[] = [];
    const original = pg.Pool.prototype.query;
    const spy = function (this: pg.Pool, ...args: unknown[]) {
      const text = typeof args[0] === 'string' ? args[0] : '';
      if (/\bnext AS \(/.test(text) && text.includes("'idle'")) fetches.push(text);
      return (original as (...a: unknown[]) => unknown).apply(this, args);
    };
    pg.Pool.prototype.query = spy as typeof original;
    try {
      const queue = await startQueue('all', silent, 0.5, 5);
      await queue.work('idle', async () => undefined);
      // Start-up: each of the 5 slots looks once.
      await new Promise((resolve) => setTimeout(resolve, 200));
      const afterStart = fetches.length;
      await new Promise((resolve) => setTimeout(resolve, 2000));
      // 2 s at 0.5 s: 4 polls (one more at a boundary); 5 slots polling alone would be 20.
      expect(fetches.length - afterStart).to.be.within(3, 5);
    } finally {
      pg.Pool.prototype.query = original;
    }
  });

  it('retries a failing job, then dead-letters it and logs it without its data', async () => {
    const lines: string[] = [];
    const logger = pino(
      { level: 'info' },
      new Writable({
        write(chunk: Buffer, _encoding, done) {
          lines.push(chunk.toString());
          done();
        },
      }),
    );
    const queue = await startQueue('all', logger);
    const attempts: number[] = [];
    await queue.work('flaky', async (job) => {
      attempts.push(job.retryCount);
      throw new Error(`remote said no (attempt ${job.retryCount})`);
    });

    const id = await queue.send(
      'flaky',
      { secret: 'hunter2' },
      { retryLimit: 1, retryDelaySeconds: 0, retryBackoff: false },
    );
    await queue.drain(['flaky']);

    expect(attempts).to.deep.equal([0, 1]);
    const dead = await queue.deadLetters('flaky');
    expect(dead).to.have.length(1);
    expect(dead[0]).to.deep.include({ id, data: { secret: 'hunter2' }, error: 'remote said no (attempt 1)' });
    expect(dead[0]?.failedAt).to.be.instanceOf(Date);

    const failures = lines.filter((line) => line.includes('job failed'));
    expect(failures).to.have.length(2);
    for (const line of failures) {
      expect(line).to.include(`"jobId":"${id}"`).and.include('"queue":"flaky"').and.not.include('hunter2');
    }
  });

  it('drains only once running jobs have finished', async () => {
    const queue = await startQueue('all');
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let started!: () => void;
    const hasStarted = new Promise<void>((resolve) => (started = resolve));
    let finished = false;
    await queue.work('slow', async () => {
      started();
      await gate;
      finished = true;
    });

    await queue.send('slow', {});
    let drained = false;
    const drain = queue.drain().then(() => (drained = true));
    await hasStarted;
    expect(drained).to.equal(false);
    release();
    await drain;

    expect(finished).to.equal(true);
  });

  it('keeps one waiting job per singleton key', async () => {
    const queue = await startQueue('web');
    const first = await queue.send('refresh', { actor: 'a' }, { singletonKey: 'a' });
    const duplicate = await queue.send('refresh', { actor: 'a' }, { singletonKey: 'a' });
    const other = await queue.send('refresh', { actor: 'b' }, { singletonKey: 'b' });

    expect(first).to.be.a('string');
    expect(duplicate).to.equal(null);
    expect(other).to.be.a('string').and.not.equal(first);
  });

  it('refuses to send before start()', async () => {
    const queue = createPgBossQueue({ connectionString: database.url, logger: silent, role: 'all' });
    running.push(queue);
    let error: unknown;
    await queue.send('early', {}).catch((err: unknown) => (error = err));
    expect(String(error)).to.include('needs a started queue');
  });
});
