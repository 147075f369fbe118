import { setTimeout as sleep } from 'node:timers/promises';
import { PgBoss, type JobWithMetadata, type SendOptions } from 'pg-boss';
import pg from 'pg';
import type { Role } from '../config/service.js';
import type { Logger } from '../logger/logger.js';
import { upgradePgBoss10Schema } from './pg-boss-10.upgrade.js';
import type { Job, JobHandler, JobOptions, JobQueue } from './queue.port.js';

export interface PgBossQueueOptions {
  connectionString: string;
  logger: Logger;
  /** 'web' only enqueues; 'worker' and 'all' also run handlers in this process. */
  role: Role;
  /** Jobs of one queue run at the same time in this process, unless `work()` says otherwise. */
  concurrency?: number;
  schema?: string;
  /**
   * How often an idle queue looks for jobs sent by another process, due retries and delayed jobs
   * (pg-boss's 2 s unless set; 0.5 s at least): one fetch per queue per interval, whatever its
   * concurrency. A local `send()` wakes an idle slot at once.
   */
  pollingIntervalSeconds?: number;
  /** Longest wait in `stop()` for running jobs before they are marked failed (and so retried). */
  stopTimeoutMs?: number;
  poolMax?: number;
}

// Each queue retries with exponential backoff unless a job says otherwise: about 5-10 s, 10-20 s, … up to 80-160 s.
const DEFAULT_RETRY = { retryLimit: 5, retryDelay: 5, retryBackoff: true };
const DRAIN_POLL_MS = 50;
const DEFAULT_POLLING_INTERVAL_SECONDS = 2;
// A slot's own pg-boss poll: a fallback only; the queue's poll timer and the wake-ups start its fetches.
const SLOT_POLLING_INTERVAL_SECONDS = 3600;
const INTERNAL_QUEUE_PREFIX = '__pgboss__';

interface LocalWorker {
  id: string;
  busy: boolean;
  /**
   * Fetches asked of this slot for jobs sent here (by a local send, or for one it left waiting) and
   * not yet answered by a job. pg-boss folds the notifications a slot gets during one fetch into one
   * more fetch, so the slot asks again itself while any are left. A job it gets with none asked came
   * from elsewhere: another process, a retry, a delayed job.
   */
  asked: number;
}

/** The slots of one queue in this process, and what they still owe. */
interface LocalQueue {
  workers: LocalWorker[];
  /** Jobs sent here while every slot was busy: as many finishing slots fetch again at once. */
  owedFetches: number;
  /** A poll fell while every slot was busy: the next slot to finish fetches again at once. */
  pollOwed: boolean;
  /** Round robin over the idle slots, so that wake-ups in a row reach different slots. */
  next: number;
  timer: NodeJS.Timeout;
}

interface Registration {
  name: string;
  handler: JobHandler<object>;
  concurrency: number;
}

interface FailureOutput {
  message?: unknown;
  value?: unknown;
}

export function createPgBossQueue(options: PgBossQueueOptions): JobQueue {
  return new PgBossQueue(options);
}

class PgBossQueue implements JobQueue {
  private readonly pool: pg.Pool;
  private readonly boss: PgBoss;
  private readonly logger: Logger;
  private readonly schema: string;
  private readonly runsWorkers: boolean;
  private readonly registrations: Registration[] = [];
  private readonly localQueues = new Map<string, LocalQueue>();
  private readonly createdQueues = new Map<string, Promise<void>>();
  private state: 'new' | 'starting' | 'started' | 'stopped' = 'new';

  constructor(private readonly options: PgBossQueueOptions) {
    this.logger = options.logger.child({ component: 'queue' });
    this.schema = options.schema ?? 'pgboss';
    // Interpolated into SQL below, as pg-boss itself does: only a plain identifier is allowed.
    if (!/^[A-Za-z_][A-Za-z0-9_]{0,49}$/.test(this.schema)) {
      throw new Error(`Invalid job queue schema name "${this.schema}"`);
    }
    this.runsWorkers = options.role !== 'web';
    // Our own pool (not pg-boss's) so that drain, dead letters and singleton sends can use it too.
    this.pool = new pg.Pool({
      connectionString: options.connectionString,
      max: options.poolMax ?? 10,
      application_name: 'agora-queue',
    });
    this.pool.on('error', (err) => this.logger.warn({ error: err.message }, 'idle queue connection failed'));
    this.boss = new PgBoss({
      db: { executeSql: (text, values) => this.pool.query(text, values) },
      schema: this.schema,
      schedule: false,
      supervise: this.runsWorkers,
    });
    this.boss.on('error', (err) => this.logger.error({ error: err.message }, 'job queue error'));
  }

  async start(): Promise<void> {
    if (this.state !== 'new') throw new Error(`Job queue cannot start: it is ${this.state}`);
    this.state = 'starting';
    // pg-boss 11+ cannot migrate a pg-boss 10 schema itself: set it aside, install anew, carry its jobs over.
    const upgrade = await upgradePgBoss10Schema(this.pool, this.schema, this.logger);
    await this.boss.start();
    this.state = 'started';
    if (upgrade) await upgrade.moveJobs((name) => this.ensureQueue(name));
    for (const registration of this.registrations) await this.startWorkers(registration);
  }

  async stop(): Promise<void> {
    if (this.state === 'stopped') return;
    const wasStarted = this.state !== 'new';
    this.state = 'stopped';
    for (const local of this.localQueues.values()) clearInterval(local.timer);
    if (wasStarted) {
      // stop() resolves once running jobs have finished (or failed at the timeout).
      await this.boss.stop({ graceful: true, timeout: this.options.stopTimeoutMs ?? 10_000 });
    }
    await this.pool.end();
  }

  async send<T extends object>(name: string, data: T, options: JobOptions = {}): Promise<string | null> {
    this.assertStarted('send');
    await this.ensureQueue(name);
    const sendOptions = toSendOptions(options);
    const id =
      options.singletonKey === undefined
        ? await this.boss.send(name, data, sendOptions)
        : await this.sendSingleton(name, data, options.singletonKey, sendOptions);
    if (id !== null && !options.startAfterSeconds) this.wakeWorker(name);
    return id;
  }

  async work<T extends object>(
    name: string,
    handler: JobHandler<T>,
    options: { concurrency?: number } = {},
  ): Promise<void> {
    if (!this.runsWorkers) return;
    const concurrency = options.concurrency ?? this.options.concurrency ?? 5;
    if (!Number.isInteger(concurrency) || concurrency < 1) {
      throw new Error(`Job queue "${name}": concurrency must be a positive integer`);
    }
    if (this.registrations.some((registration) => registration.name === name)) {
      throw new Error(`Job queue "${name}" already has a handler`);
    }
    const registration: Registration = { name, handler: handler as JobHandler<object>, concurrency };
    this.registrations.push(registration);
    if (this.state === 'started') await this.startWorkers(registration);
  }

  async drain(names?: string[], timeoutMs = 10_000): Promise<void> {
    this.assertStarted('drain');
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const pending = await this.pendingJobs(names);
      if (pending.length === 0) return;
      if (Date.now() >= deadline) {
        const summary = pending.map((row) => `${row.name}: ${row.count}`).join(', ');
        throw new Error(`Job queue drain timed out after ${timeoutMs} ms; still pending: ${summary}`);
      }
      await sleep(DRAIN_POLL_MS);
    }
  }

  async deadLetters(
    name: string,
    limit = 50,
  ): Promise<Array<{ id: string; data: unknown; error: string | null; failedAt: Date | null }>> {
    this.assertStarted('deadLetters');
    const { rows } = await this.pool.query<{
      id: string;
      data: unknown;
      output: FailureOutput | null;
      completed_on: Date | null;
    }>(
      `SELECT id, data, output, completed_on FROM ${this.schema}.job WHERE name = $1 AND state = 'failed'
       ORDER BY completed_on DESC NULLS LAST
       LIMIT $2`,
      [name, limit],
    );
    return rows.map((row) => ({
      id: row.id,
      data: row.data,
      error: failureMessage(row.output),
      failedAt: row.completed_on,
    }));
  }

  private assertStarted(method: string): void {
    if (this.state !== 'started')
      throw new Error(`JobQueue.${method}() needs a started queue (it is ${this.state})`);
  }

  private ensureQueue(name: string): Promise<void> {
    let created = this.createdQueues.get(name);
    if (!created) {
      created = this.boss.createQueue(name, DEFAULT_RETRY);
      // A failed creation is retried on the next call rather than cached.
      created.catch(() => this.createdQueues.delete(name));
      this.createdQueues.set(name, created);
    }
    return created;
  }

  /** pg-boss's own singleton keys only act with throttling or special queue policies; this locks per key. */
  private async sendSingleton(
    name: string,
    data: object,
    key: string,
    sendOptions: SendOptions,
  ): Promise<string | null> {
    const client = await this.pool.connect();
    // A checked-out client has no pool listener: a connection lost between queries (a dropped
    // database) must fail this send, not crash the process.
    const lost = (err: Error) => this.logger.warn({ error: err.message }, 'queue connection lost');
    client.on('error', lost);
    try {
      await client.query('BEGIN');
      await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [
        `agora-queue:${name}:${key}`,
      ]);
      const { rowCount } = await client.query(
        `SELECT 1 FROM ${this.schema}.job WHERE name = $1 AND singleton_key = $2 AND state < 'active' LIMIT 1`,
        [name, key],
      );
      const id = rowCount
        ? null
        : await this.boss.send(name, data, {
            ...sendOptions,
            singletonKey: key,
            db: { executeSql: (text, values) => client.query(text, values) },
          });
      await client.query('COMMIT');
      return id;
    } catch (err) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw err;
    } finally {
      client.removeListener('error', lost);
      client.release();
    }
  }

  /**
   * One pg-boss worker per slot, each fetching and running one job at a time. An idle queue costs one
   * fetch per polling interval, not one per slot: the slots' own polls are a fallback, and the queue's
   * timer wakes one idle slot. A slot fetches again right after a job only when there is reason to:
   * a local send found every slot busy, a poll fell while they were, or its job came from elsewhere
   * (another process, a retry, a delayed job), which hints at a backlog; such a job also wakes one
   * more idle slot so a backlog spreads over the slots.
   */
  private async startWorkers(registration: Registration): Promise<void> {
    const { name, handler, concurrency } = registration;
    await this.ensureQueue(name);
    const intervalMs = (this.options.pollingIntervalSeconds ?? DEFAULT_POLLING_INTERVAL_SECONDS) * 1000;
    const local: LocalQueue = {
      workers: [],
      owedFetches: 0,
      pollOwed: false,
      next: 0,
      timer: setInterval(() => this.poll(local), intervalMs),
    };
    local.timer.unref();
    this.localQueues.set(name, local);
    for (let slot = 0; slot < concurrency; slot += 1) {
      // Each slot fetches once when it starts (a backlog left from before is found at once).
      const worker: LocalWorker = { id: '', busy: false, asked: 0 };
      worker.id = await this.boss.work(
        name,
        {
          includeMetadata: true,
          batchSize: 1,
          pollingIntervalSeconds: Math.max(SLOT_POLLING_INTERVAL_SECONDS, intervalMs / 1000),
        },
        async ([job]: JobWithMetadata<object>[]) => {
          if (!job) return;
          worker.busy = true;
          const foreign = worker.asked === 0;
          if (foreign) this.wakeIdle(local, false);
          else worker.asked -= 1;
          try {
            await this.run(handler, job);
          } finally {
            worker.busy = false;
            // Fetching again at once drains a backlog back to back (pg-boss skips its pause once notified).
            if (local.owedFetches > 0) {
              local.owedFetches -= 1;
              this.ask(worker, true);
            } else if (foreign || local.pollOwed) {
              local.pollOwed = false;
              this.ask(worker, false);
            } else if (worker.asked > 0) {
              this.boss.notifyWorker(worker.id);
            }
          }
        },
      );
      local.workers.push(worker);
    }
  }

  /** The queue's poll: one idle slot looks; with none idle, the next one to finish does. */
  private poll(local: LocalQueue): void {
    if (this.state !== 'started') return;
    // Nothing running: what is still asked was answered by empty fetches (another slot or process
    // took the job); the poll looks anyway.
    if (local.workers.every((worker) => !worker.busy)) {
      for (const worker of local.workers) worker.asked = 0;
      local.owedFetches = 0;
    }
    if (!this.wakeIdle(local, false)) local.pollOwed = true;
  }

  /** Wakes one idle slot, the least asked of (round robin among equals); false when every slot is busy. */
  private wakeIdle(local: LocalQueue, forLocal: boolean): boolean {
    const { workers } = local;
    let chosen = -1;
    for (let i = 0; i < workers.length; i += 1) {
      const index = (local.next + i) % workers.length;
      const worker = workers[index]!;
      if (worker.busy) continue;
      if (chosen === -1 || worker.asked < workers[chosen]!.asked) chosen = index;
      if (worker.asked === 0) break;
    }
    if (chosen === -1) return false;
    local.next = (chosen + 1) % workers.length;
    this.ask(workers[chosen]!, forLocal);
    return true;
  }

  private ask(worker: LocalWorker, forLocal: boolean): void {
    if (forLocal) worker.asked += 1;
    this.boss.notifyWorker(worker.id);
  }

  private async run(handler: JobHandler<object>, job: JobWithMetadata<object>): Promise<void> {
    const view: Job<object> = { id: job.id, name: job.name, data: job.data, retryCount: job.retryCount };
    try {
      await handler(view);
    } catch (err) {
      // Never log job.data: it may hold secrets (tokens, private keys of deliveries).
      const final = job.retryCount >= job.retryLimit;
      this.logger[final ? 'error' : 'warn'](
        { queue: job.name, jobId: job.id, retryCount: job.retryCount, error: errorMessage(err) },
        final ? 'job failed after its last retry' : 'job failed; it will be retried',
      );
      throw err;
    }
  }

  /** Spares a fresh job the polling delay when this process can run it. */
  private wakeWorker(name: string): void {
    const local = this.localQueues.get(name);
    if (!local?.workers.length) return;
    if (!this.wakeIdle(local, true)) local.owedFetches += 1;
  }

  private async pendingJobs(names: string[] | undefined): Promise<Array<{ name: string; count: string }>> {
    const { rows } = await this.pool.query<{ name: string; count: string }>(
      `SELECT name, count(*) AS count FROM ${this.schema}.job
       WHERE state < 'completed'
         AND ($1::text[] IS NULL OR name = ANY($1::text[]))
         AND NOT starts_with(name, $2)
       GROUP BY name ORDER BY name`,
      [names ?? null, INTERNAL_QUEUE_PREFIX],
    );
    return rows;
  }
}

function toSendOptions(options: JobOptions): SendOptions {
  const result: SendOptions = {};
  if (options.retryLimit !== undefined) result.retryLimit = options.retryLimit;
  if (options.retryDelaySeconds !== undefined) result.retryDelay = options.retryDelaySeconds;
  if (options.retryBackoff !== undefined) result.retryBackoff = options.retryBackoff;
  if (options.startAfterSeconds !== undefined) result.startAfter = options.startAfterSeconds;
  if (options.expireInSeconds !== undefined) result.expireInSeconds = options.expireInSeconds;
  return result;
}

/** pg-boss stores a thrown Error as {message, stack, …} and anything else as {value}. */
function failureMessage(output: FailureOutput | null): string | null {
  if (!output) return null;
  if (typeof output.message === 'string') return output.message;
  const value = output.value;
  if (typeof value === 'string') return value;
  if (value && typeof value === 'object' && typeof (value as FailureOutput).message === 'string') {
    return (value as { message: string }).message;
  }
  return value === undefined ? null : JSON.stringify(value);
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
