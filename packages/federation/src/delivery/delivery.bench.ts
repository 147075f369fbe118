// Delivery throughput against the signing ceiling. CLI: `node --import tsx src/delivery/delivery.bench.ts
// [--quick]` (PostgreSQL from TEST_DATABASE_URL, else an embedded one). Not a test: it prints figures.
// `pnpm bench` calls runDeliveryBench().
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { generateKeyPairSync, sign } from 'node:crypto';
import { loadavg } from 'node:os';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createLogger, createPgBossQueue, type Logger } from '@agora/core';
import { createSequelize, runMigrations } from '@agora/db';
import { createTestDatabase } from '@agora/db/testing';
import type { Sequelize } from 'sequelize';
import { ActorStore } from '../actors/index.js';
import { createGuardedFetch, type GuardedFetch } from '../fetch/index.js';
import { federationMigrationSet } from '../migrations/index.js';
import { signRequest } from '../signatures/index.js';
import { DELIVERY_JOB, DeliveryService } from './delivery.service.js';
import { defaultSignerThreads } from './async-signer.js';

export interface DeliveryBenchOptions {
  /** An empty database to work in (left for the caller to drop); default: a throwaway test database. */
  databaseUrl?: string;
  /** Deliveries per row (default 4000; 1500 with `quick`). */
  deliveries?: number;
  /** Only the headline rows, shorter. */
  quick?: boolean;
  /** Where the human-readable lines go (default: nowhere). */
  print?: (line: string) => void;
}

export interface DeliveryBenchRow {
  label: string;
  workerProcesses: number;
  /** Signing threads per worker process; 0 signs on the event loop. */
  signerThreads: number;
  inboxesPerJob: number;
  jobsAtOnce: number;
  /** Steady state: POSTs between the 10th and 90th percentile arrival at the inbox, per second. */
  deliveriesPerSecond: number;
  /** Every delivery over the time from starting the worker(s) to an empty queue. */
  endToEndPerSecond: number;
  /** deliveriesPerSecond / ceiling. */
  ratio: number;
  /** CPU of the worker process (all its threads) over the run; null when it was another process. */
  workerCpuPercent: number | null;
}

export interface DeliveryBenchResult {
  /** Single-thread signed requests per second: the best of the samples taken before and after the rows. */
  ceiling: number;
  ceilingSamples: number[];
  /** Steady deliveries/s of one worker process with the shipped defaults. */
  delivered: number;
  ratio: number;
  /** 1-minute load average at the start and at the end. */
  loadAverage: [number, number];
  rows: DeliveryBenchRow[];
}

interface Row {
  label: string;
  processes: number;
  signerThreads: number;
  /** Inboxes per activity: equal to the batch size unless shared inboxes are measured. */
  inboxes: number;
  batchSize: number;
  concurrency: number;
}

/** The shipped defaults of DeliveryService: 50 inboxes per job, 20 jobs at once. */
const DEFAULT_BATCH = 50;
const DEFAULT_JOBS = 20;

/** RSA-2048 signed requests per second on this thread: the ceiling one thread can sign. */
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
  const body = JSON.stringify(activity('ceiling'));
  const url = 'http://127.0.0.1:1/inbox';
  return {
    raw: measure(() => sign('sha256', data, privateKey)),
    request: measure(() =>
      signRequest(
        { method: 'POST', url, headers: { 'content-type': 'application/activity+json' }, body },
        { keyId: 'https://local.test/@a#main-key', privateKey },
      ),
    ),
  };
}

function activity(id: string): object {
  return { id: `https://local.test/a/${id}`, type: 'Create', object: { content: 'x'.repeat(500) } };
}

// The inbox records when each POST ended; "reset" clears, "stats" answers one JSON line.
const INBOX_CODE = `
const times = [];
const server = require('node:http').createServer((req, res) => {
  req.resume();
  req.on('end', () => { times.push(performance.now()); res.writeHead(202).end(); });
});
server.keepAliveTimeout = 60000;
require('node:readline').createInterface({ input: process.stdin }).on('line', (command) => {
  if (command === 'reset') times.length = 0;
  if (command === 'stats') {
    const n = times.length, low = Math.floor(n * 0.1), high = Math.max(low, Math.ceil(n * 0.9) - 1);
    process.stdout.write(JSON.stringify({ hits: n, spanMs: n ? times[high] - times[low] : 0, spanHits: high - low }) + '\\n');
  }
});
server.listen(0, '127.0.0.1', () => process.stdout.write(server.address().port + '\\n'));`;

interface InboxProcess {
  origin: string;
  reset(): void;
  stats(): Promise<{ hits: number; spanMs: number; spanHits: number }>;
  stop(): void;
}

/** A loopback inbox in its own process, so it takes no CPU from the worker being measured. */
async function startInboxProcess(): Promise<InboxProcess> {
  const child = spawn(process.execPath, ['-e', INBOX_CODE], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const next = async (): Promise<string> => {
    const line = await lines.next();
    if (line.done) throw new Error('The bench inbox exited');
    return line.value;
  };
  const port = Number(await next());
  return {
    origin: `http://127.0.0.1:${port}`,
    reset: () => void child.stdin.write('reset\n'),
    stats: async () => {
      child.stdin.write('stats\n');
      return JSON.parse(await next()) as { hits: number; spanMs: number; spanHits: number };
    },
    stop: () => void child.kill(),
  };
}

/** Worker processes on the bench's queue schema, each printing "ready" once it takes jobs. */
async function startWorkerProcesses(
  count: number,
  settings: { databaseUrl: string; schema: string; concurrency: number; signerThreads: number },
): Promise<ChildProcess[]> {
  const self = new URL(import.meta.url);
  const fromSources = self.pathname.endsWith('.ts');
  const fixture = fileURLToPath(new URL(`./delivery-worker.fixture.${fromSources ? 'ts' : 'js'}`, self));
  const json = JSON.stringify({ ...settings, timing: {} });
  const children: ChildProcess[] = [];
  // One after the other: pg-boss deadlocks when two processes create the same queue at once.
  for (let n = 0; n < count; n += 1) {
    const child = spawn(process.execPath, [...(fromSources ? ['--import', 'tsx'] : []), fixture, json], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    children.push(child);
    const [ready] = (await Promise.race([
      once(child.stdout as NodeJS.ReadableStream, 'data'),
      once(child, 'exit'),
    ])) as [unknown];
    if (!String(ready).includes('ready')) {
      for (const started of children) started.kill();
      throw new Error('A bench worker process exited before it was ready');
    }
  }
  return children;
}

interface BenchWorld {
  databaseUrl: string;
  sequelize: Sequelize;
  actors: ActorStore;
  senderId: string;
  fetch: GuardedFetch;
  logger: Logger;
  inbox: InboxProcess;
  deliveries: number;
  ceiling: () => number;
  schemas: number;
}

async function runRow(world: BenchWorld, row: Row): Promise<DeliveryBenchRow> {
  world.schemas += 1;
  const { sequelize, actors, fetch, logger, inbox } = world;
  const schema = `bench_q${world.schemas}`;
  const queue = createPgBossQueue({
    connectionString: world.databaseUrl,
    logger,
    role: row.processes === 0 ? 'all' : 'web',
    schema,
    pollingIntervalSeconds: 0.5,
    poolMax: 10,
  });
  const service = new DeliveryService({
    queue,
    sequelize,
    actors,
    fetch,
    logger,
    batchSize: row.batchSize,
    signerThreads: row.signerThreads,
  });
  const children: ChildProcess[] = [];
  await queue.start();
  try {
    const enqueue = async (): Promise<void> => {
      const recipients = Array.from({ length: row.inboxes }, (_, i) => ({
        inboxUrl: `${inbox.origin}/users/u${i}/inbox`,
      }));
      for (let n = 0; n < world.deliveries / row.inboxes; n += 1) {
        await service.deliver(activity(`${schema}-${n}`), { senderActorId: world.senderId, recipients });
      }
    };
    inbox.reset();
    let start: number;
    let cpu: NodeJS.CpuUsage | null = null;
    if (row.processes === 0) {
      // One worker process, this one: everything is queued first, then the worker starts.
      await enqueue();
      start = performance.now();
      const cpuBefore = process.cpuUsage();
      await service.registerWorker({ concurrency: row.concurrency });
      await queue.drain([DELIVERY_JOB], 600_000);
      cpu = process.cpuUsage(cpuBefore);
    } else {
      // Separate worker processes only find jobs by polling, so they are running before anything is queued.
      const settings = { databaseUrl: world.databaseUrl, schema, concurrency: row.concurrency };
      children.push(
        ...(await startWorkerProcesses(row.processes, { ...settings, signerThreads: row.signerThreads })),
      );
      start = performance.now();
      await enqueue();
      await queue.drain([DELIVERY_JOB], 600_000);
    }
    const seconds = (performance.now() - start) / 1000;
    const stats = await inbox.stats();
    if (stats.hits !== world.deliveries)
      throw new Error(`The inbox saw ${stats.hits} of ${world.deliveries} deliveries`);
    const steady = stats.spanHits / (stats.spanMs / 1000);
    return {
      label: row.label,
      workerProcesses: Math.max(1, row.processes),
      signerThreads: row.signerThreads,
      inboxesPerJob: Math.min(row.batchSize, row.inboxes),
      jobsAtOnce: row.concurrency,
      deliveriesPerSecond: steady,
      endToEndPerSecond: world.deliveries / seconds,
      ratio: steady / world.ceiling(),
      workerCpuPercent: cpu ? (cpu.user + cpu.system) / 1e4 / seconds : null,
    };
  } finally {
    for (const child of children) child.kill();
    await service.close();
    await queue.stop();
  }
}

function plan(threads: number, quick: boolean): { headline: Row; rows: Row[] } {
  const row = (label: string, rest: Partial<Row>): Row => ({
    label,
    processes: 0,
    signerThreads: threads,
    inboxes: DEFAULT_BATCH,
    batchSize: DEFAULT_BATCH,
    concurrency: DEFAULT_JOBS,
    ...rest,
  });
  const headline = row(`shipped defaults (${threads} signing thread(s))`, {});
  const inline = row('signing on the event loop (signerThreads 0)', { signerThreads: 0 });
  if (quick) return { headline, rows: [inline, headline] };
  return {
    headline,
    rows: [
      inline,
      headline,
      ...(threads === 1 ? [] : [row('1 signing thread', { signerThreads: 1 })]),
      ...(threads === 2 ? [] : [row('2 signing threads', { signerThreads: 2 })]),
      row('5 jobs at once', { concurrency: 5 }),
      // Retries are jobs of one inbox: the queue round trip per POST is what this row shows.
      row('one inbox per job, 50 jobs at once', { inboxes: 200, batchSize: 1, concurrency: 50 }),
      // Followers behind 20 shared inboxes cost 20 POSTs per activity, however many they are.
      row('20 shared inboxes per activity', { inboxes: 20 }),
      row('2 worker processes', { processes: 2 }),
      row('2 worker processes, signing on the event loop', { processes: 2, signerThreads: 0 }),
    ],
  };
}

function formatRow(row: DeliveryBenchRow): string {
  const cpu = row.workerCpuPercent === null ? '' : `, worker CPU ${row.workerCpuPercent.toFixed(0)} %`;
  return (
    `(b) ${row.label}: ${row.deliveriesPerSecond.toFixed(0)} deliveries/s steady (ratio ${row.ratio.toFixed(2)}), ` +
    `${row.endToEndPerSecond.toFixed(0)}/s start to empty queue${cpu}`
  );
}

/** Measures signed deliveries per second from worker processes to a loopback inbox, next to the RSA ceiling. */
export async function runDeliveryBench(options: DeliveryBenchOptions = {}): Promise<DeliveryBenchResult> {
  const print = options.print ?? (() => undefined);
  const quick = options.quick ?? false;
  const loadBefore = loadavg()[0] as number;
  const ceilingSamples: number[] = [];
  const sampleCeiling = (): void => {
    const ceiling = signingCeiling(quick ? 1 : 2);
    ceilingSamples.push(ceiling.request);
    print(
      `(a) RSA-2048 signing ceiling, one thread: ${ceiling.raw.toFixed(0)} sig/s raw, ${ceiling.request.toFixed(0)} signed requests/s`,
    );
  };
  sampleCeiling();

  const owned = options.databaseUrl ? null : await createTestDatabase('delivery_bench');
  const databaseUrl = options.databaseUrl ?? (owned as { url: string }).url;
  const sequelize = createSequelize({ url: databaseUrl, poolMax: 10 });
  const inbox = await startInboxProcess();
  const logger = createLogger({ name: 'delivery-bench', level: 'silent' });
  const fetch = createGuardedFetch({ userAgent: 'agora-bench', allowPrivateHosts: ['127.0.0.1'] });
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
    const sender = await actors.createLocal({ type: 'Person', username: 'bench_sender' });
    await actors.ensureKeys(sender.id);
    const world: BenchWorld = {
      databaseUrl,
      sequelize,
      actors,
      senderId: sender.id,
      fetch,
      logger,
      inbox,
      deliveries: options.deliveries ?? (quick ? 1500 : 4000),
      ceiling: () => Math.max(...ceilingSamples),
      schemas: 0,
    };
    const { headline, rows: planned } = plan(defaultSignerThreads(), quick);
    const rows: DeliveryBenchRow[] = [];
    let best: DeliveryBenchRow | undefined;
    for (const row of planned) {
      const measured = await runRow(world, row);
      rows.push(measured);
      if (row === headline) best = measured;
      print(formatRow(measured));
    }
    sampleCeiling();
    // Ratios against the best ceiling sample, whichever came last.
    for (const row of rows) row.ratio = row.deliveriesPerSecond / world.ceiling();
    const shared = rows.find((row) => row.label.startsWith('20 shared'));
    if (shared) {
      print(
        `    with 100 followers behind each shared inbox: ${(shared.deliveriesPerSecond * 100).toFixed(0)} followers reached/s`,
      );
    }
    const delivered = (best as DeliveryBenchRow).deliveriesPerSecond;
    const result: DeliveryBenchResult = {
      ceiling: world.ceiling(),
      ceilingSamples,
      delivered,
      ratio: delivered / world.ceiling(),
      loadAverage: [loadBefore, loadavg()[0] as number],
      rows,
    };
    print(
      `=> one worker process, shipped defaults: ${delivered.toFixed(0)} deliveries/s = ${result.ratio.toFixed(2)} of the ` +
        `single-thread ceiling ${result.ceiling.toFixed(0)}/s (load average ${result.loadAverage.map((l) => l.toFixed(2)).join(' → ')})`,
    );
    return result;
  } finally {
    fetch.close();
    inbox.stop();
    await sequelize.close();
    await owned?.drop();
  }
}

// The CLI: only when this file is the entry point, so importing it runs nothing.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  await runDeliveryBench({
    quick: process.argv.includes('--quick'),
    print: (line) => void process.stdout.write(`${line}\n`),
  });
}
