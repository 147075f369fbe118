// The streaming benchmark (`pnpm bench --only streaming`, part of a full run; issue 16 Performance):
// 5,000 WebSocket clients on one microblog server process, spread over 500 users (10 sockets per
// token, under the cap of 50), each following one author and subscribed to the `user` stream as
// Elk, Phanpy and masto.js open it (`/api/v1/streaming?stream=user`, the token as the subprotocol).
// The author posts at a steady pace; every client records when each `update` frame arrives. Reported:
// frames per second received across all clients, the delivery time from the POST's answer to each
// frame (p50/p99/max), and the server's resident memory per idle socket. The clients run in worker
// threads (`ws`, as Node clients such as masto.js use), so the bench's main thread only posts and
// the client side is not one event loop. Its own server and database, loopback only, bounded in
// sockets, posts and time. The users are written directly in the database (seedLocalFollowers).
import { readFile, rm } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import {
  freePort,
  launchServer,
  type RunningServer,
  type BenchEnvironment,
  type BenchOutcome,
  serviceSpec,
  BENCH_HOST,
} from './processes.js';
import { SERVICE_ENTRY } from './scenarios.js';
import { microblogViewer, seedLocalFollowers } from './seeds-microblog.js';
import { latencyFigures, type LatencyFigures } from './uploads.js';

const HOST = BENCH_HOST;

/** Issue 16: at least this many frames per second across the clients… */
export const FRAMES_PER_SECOND_TARGET = 50_000;
/** …with each frame delivered within this (p99, from the POST's answer). */
export const DELIVERY_P99_LIMIT_MS = 100;
/** The server's cap of open streams per token (DEFAULT_MAX_CONNECTIONS_PER_TOKEN). */
const PER_TOKEN_CAP = 50;
/** Bounds: how long opening the sockets, one post's frames and the whole measurement may take. */
const OPEN_TIMEOUT_MS = 120_000;
const FRAME_TIMEOUT_MS = 30_000;

export interface StreamingOptions extends BenchEnvironment {
  sockets: number;
  /** Users (one token each) the sockets are spread over. */
  users: number;
  posts: number;
  /** Milliseconds between the starts of two posts. */
  intervalMs: number;
}

export interface StreamingResult extends BenchOutcome {
  sockets: number;
  users: number;
  posts: number;
  intervalMs: number;
  clientThreads: number;
  /** Frames received across the clients per second, first frame to last. */
  framesPerSecond?: number;
  framesReceived?: number;
  framesExpected?: number;
  /** From the POST's answer to each frame's arrival (ms). */
  delivery?: LatencyFigures;
  /** From a status's first frame to each of its frames (ms): the hub's own spread. */
  spread?: LatencyFigures;
  post?: LatencyFigures;
  memory?: { rssBeforeMb: number; rssAfterMb: number; bytesPerSocket: number };
  /**
   * CPU seconds spent while the posts were fanned out (first post to last frame collected): the
   * server process's, and this process's (the client threads and the poster), over `wallSeconds`.
   */
  cpu?: { serverSeconds: number; clientSeconds: number; wallSeconds: number };
  /** Sockets one token could open of PER_TOKEN_CAP + 10 tried, and how many were refused. */
  cap?: { tried: number; opened: number; refused: number };
  verdict: 'PASS' | 'BELOW' | 'NOT MEASURED';
  loadAverage?: [number, number];
}

export function streamingVerdict(
  framesPerSecond: number,
  delivery: LatencyFigures,
  lost: number,
): StreamingResult['verdict'] {
  if (delivery.count === 0) return 'NOT MEASURED';
  return framesPerSecond >= FRAMES_PER_SECOND_TARGET && delivery.p99 <= DELIVERY_P99_LIMIT_MS && lost === 0
    ? 'PASS'
    : 'BELOW';
}

export function formatStreamingLines(result: StreamingResult): string[] {
  const { delivery, spread, memory, cap } = result;
  if (!delivery || result.framesPerSecond === undefined)
    return [`streaming: ${result.outcome} — ${result.problems.join('; ')}`];
  const ms = (value: number) => (value < 10 ? value.toFixed(2) : value.toFixed(1));
  const n = (value: number) => Math.round(value).toLocaleString('en-US');
  return [
    `${n(result.sockets)} sockets of ${n(result.users)} users on \`user\`, ${result.posts} posts one every ${result.intervalMs} ms, ` +
      `clients in ${result.clientThreads} worker thread(s)` +
      (result.loadAverage ? `; load average ${result.loadAverage.join(' → ')}` : ''),
    `  ${n(result.framesPerSecond)} frames/s received (${n(result.framesReceived ?? 0)} of ${n(result.framesExpected ?? 0)} frames)`,
    `  POST answer → frame p50 ${ms(delivery.p50)} ms, p99 ${ms(delivery.p99)} ms, max ${ms(delivery.max)} ms` +
      (spread ? `; first frame → frame p99 ${ms(spread.p99)} ms` : ''),
    ...(memory
      ? [
          `  server RSS ${memory.rssBeforeMb.toFixed(1)} MB → ${memory.rssAfterMb.toFixed(1)} MB with the sockets open: ` +
            `${n(memory.bytesPerSocket / 1024)} KiB per idle socket`,
        ]
      : []),
    ...(result.cpu
      ? [
          `  CPU while fanning out (${result.cpu.wallSeconds.toFixed(1)} s): server ${result.cpu.serverSeconds.toFixed(1)} s, ` +
            `clients and poster ${result.cpu.clientSeconds.toFixed(1)} s`,
        ]
      : []),
    ...(cap
      ? [
          `  one token: ${cap.opened} of ${cap.tried} sockets opened, ${cap.refused} refused (cap ${PER_TOKEN_CAP})`,
        ]
      : []),
    `target: ${n(result.framesPerSecond)} frames/s (≥ ${n(FRAMES_PER_SECOND_TARGET)}), p99 ${ms(delivery.p99)} ms (≤ ${DELIVERY_P99_LIMIT_MS}) ${result.verdict}`,
  ];
}

// The clients, on threads of their own: each opens its share of sockets (the token as subprotocol,
// as masto.js sends it), then records, per status id, when each `update` frame arrived (ms since
// the epoch, precise to the microsecond across threads). They use \`ws\` (what Node clients such as
// masto.js use) and look at the received bytes without decoding them: the client side must cost
// less than the server's, or the bench measures its own clients.
const CLIENTS_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const WebSocket = require(workerData.wsPath);
const { url, tokens, perToken } = workerData;
const now = () => performance.timeOrigin + performance.now();
const arrivals = new Map();
const sockets = [];
let frames = 0, closed = 0, failed = 0;
const UPDATE = Buffer.from('"event":"update"');
const ID = Buffer.from('\\\\"id\\\\":\\\\"');
const open = (token) => new Promise((resolve) => {
  const ws = new WebSocket(url, token, { perMessageDeflate: false });
  let settled = false;
  ws.on('open', () => { settled = true; resolve(true); });
  ws.on('error', () => { if (!settled) { settled = true; failed += 1; resolve(false); } });
  ws.on('close', () => { closed += 1; if (!settled) { settled = true; failed += 1; resolve(false); } });
  ws.on('message', (data, isBinary) => {
    if (isBinary || data.indexOf(UPDATE) === -1) return;
    const at = now();
    frames += 1;
    const from = data.indexOf(ID);
    if (from === -1) return;
    const start = from + ID.length;
    let end = start;
    while (end < data.length && data[end] >= 48 && data[end] <= 57) end += 1;
    const id = data.toString('latin1', start, end);
    let list = arrivals.get(id);
    if (!list) arrivals.set(id, (list = []));
    list.push(at);
  });
  sockets.push(ws);
});
parentPort.on('message', async (message) => {
  if (message.type === 'open') {
    const jobs = [];
    for (const token of tokens) for (let i = 0; i < perToken; i++) jobs.push(token);
    let next = 0;
    await Promise.all(Array.from({ length: 25 }, async () => {
      while (next < jobs.length) await open(jobs[next++]);
    }));
    parentPort.postMessage({ type: 'opened', opened: jobs.length - failed, failed });
  } else if (message.type === 'count') {
    parentPort.postMessage({ type: 'count', id: message.id, n: (arrivals.get(message.id) || []).length });
  } else if (message.type === 'collect') {
    const out = {};
    for (const [id, list] of arrivals) out[id] = Float64Array.from(list);
    parentPort.postMessage({ type: 'collected', arrivals: out, frames, closed, failed });
  } else if (message.type === 'close') {
    for (const ws of sockets) ws.close();
    await new Promise((resolve) => setTimeout(resolve, 200));
    parentPort.postMessage({ type: 'closed' });
  }
});
`;

interface ClientThread {
  ask<T>(message: Record<string, unknown>, answer: string, timeoutMs?: number): Promise<T>;
  stop(): Promise<void>;
}

function startClients(url: string, tokens: string[], perToken: number): ClientThread {
  const worker = new Worker(CLIENTS_SOURCE, {
    eval: true,
    workerData: { url, tokens, perToken, wsPath: createRequire(import.meta.url).resolve('ws') },
  });
  let failure: Error | undefined;
  worker.on('error', (error) => (failure = error));
  return {
    ask<T>(message: Record<string, unknown>, answer: string, timeoutMs = OPEN_TIMEOUT_MS): Promise<T> {
      if (failure) return Promise.reject(failure);
      return new Promise<T>((resolve, reject) => {
        const timer = setTimeout(() => {
          worker.off('message', listen);
          reject(new Error(`client thread: no ${answer} within ${timeoutMs} ms`));
        }, timeoutMs);
        const listen = (reply: { type: string }) => {
          if (reply.type !== answer) return;
          clearTimeout(timer);
          worker.off('message', listen);
          resolve(reply as T);
        };
        worker.on('message', listen);
        worker.postMessage(message);
      });
    },
    async stop() {
      await this.ask({ type: 'close' }, 'closed', 10_000).catch(() => undefined);
      await worker.terminate();
    },
  };
}

function seconds(since: number): string {
  return ((performance.now() - since) / 1000).toFixed(1);
}

/** CPU seconds (user + system) a process has used (Linux), undefined elsewhere. */
async function cpuSecondsOf(pid: number | undefined): Promise<number | undefined> {
  if (pid === undefined) return undefined;
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
  // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
  const fields = stat?.slice(stat.lastIndexOf(')') + 2).split(' ');
  if (!fields || fields.length < 13) return undefined;
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
}
/** USER_HZ, 100 on every Linux architecture Node runs on. */
const CLOCK_TICKS_PER_SECOND = 100;

/** The resident memory of a process (Linux), in bytes; undefined elsewhere. */
async function rssOf(pid: number | undefined): Promise<number | undefined> {
  if (pid === undefined) return undefined;
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => undefined);
  const kb = status?.match(/^VmRSS:\s+(\d+)\s+kB/m)?.[1];
  return kb === undefined ? undefined : Number(kb) * 1024;
}

/** Runs `task` over `items`, `limit` at a time, keeping their order. */
async function mapLimited<T, R>(
  items: readonly T[],
  limit: number,
  task: (item: T) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const index = next++;
        results[index] = await task(items[index] as T);
      }
    }),
  );
  return results;
}

/** Opens PER_TOKEN_CAP + 10 sockets with one token: the ones past the cap must be refused. */
async function tryCap(url: string, token: string): Promise<NonNullable<StreamingResult['cap']>> {
  const tried = PER_TOKEN_CAP + 10;
  const sockets: WebSocket[] = [];
  const outcomes = await mapLimited(Array.from({ length: tried }), 1, () => {
    return new Promise<boolean>((resolve) => {
      const ws = new WebSocket(url, token);
      sockets.push(ws);
      ws.onopen = () => resolve(true);
      ws.onerror = () => resolve(false);
    });
  });
  for (const ws of sockets) ws.close();
  const opened = outcomes.filter(Boolean).length;
  return { tried, opened, refused: tried - opened };
}

export async function runStreamingBench(options: StreamingOptions): Promise<StreamingResult> {
  const threads = Math.max(1, Math.min(4, cpus().length));
  const perToken = Math.ceil(options.sockets / options.users);
  const result: StreamingResult = {
    outcome: 'ok',
    problems: [],
    sockets: perToken * options.users,
    users: options.users,
    posts: options.posts,
    intervalMs: options.intervalMs,
    clientThreads: threads,
    verdict: 'NOT MEASURED',
  };
  if (perToken >= PER_TOKEN_CAP) {
    result.outcome = 'failed';
    result.problems.push(`${perToken} sockets per token would pass the cap of ${PER_TOKEN_CAP}`);
    return result;
  }
  const dataDir = join(options.dataDir, 'streaming');
  let server: RunningServer | undefined;
  const clients: ClientThread[] = [];
  try {
    const databaseUrl = await options.createDatabase('streaming');
    const port = await freePort(HOST);
    server = await launchServer(
      serviceSpec(options, {
        name: 'microblog',
        entry: SERVICE_ENTRY.microblog,
        port,
        databaseUrl,
        dataDir,
        // BENCH_STREAMING_CPU_PROF=<dir>: the server writes a V8 CPU profile there when it stops.
        nodeArgs: process.env.BENCH_STREAMING_CPU_PROF
          ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_STREAMING_CPU_PROF}`]
          : [],
      }),
    );
    const baseUrl = server.url;
    const seedStarted = performance.now();
    const author = await microblogViewer(baseUrl, databaseUrl);
    // The users, their tokens and follows written directly (one password hash, shared): a sign-up each
    // through the API would spend minutes hashing passwords before anything is measured.
    const tokens = await seedLocalFollowers(databaseUrl, baseUrl, author, options.users);
    if (options.signal?.aborted) throw new Error('interrupted');
    options.print(`${options.users} users following the author, seeded in ${seconds(seedStarted)} s`);

    const post = async (n: number) => {
      const sentAt = performance.timeOrigin + performance.now();
      const response = await fetch(`${baseUrl}/api/v1/statuses`, {
        method: 'POST',
        headers: { authorization: `Bearer ${author.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          status: `Streaming bench post ${n}: a sentence or two, as people write them.`,
        }),
        signal: AbortSignal.timeout(FRAME_TIMEOUT_MS),
      });
      const text = await response.text();
      const answeredAt = performance.timeOrigin + performance.now();
      if (response.status !== 200)
        throw new Error(`POST /api/v1/statuses → ${response.status}: ${text.slice(0, 200)}`);
      return { id: String((JSON.parse(text) as { id: unknown }).id), sentAt, answeredAt };
    };
    // The server's path is warm (one post) before its memory is read.
    await post(0);
    await delay(1000);
    const rssBefore = await rssOf(server.pid);

    const url = `${baseUrl.replace(/^http/, 'ws')}/api/v1/streaming?stream=user`;
    const openStarted = performance.now();
    for (let t = 0; t < threads; t++) {
      clients.push(
        startClients(
          url,
          tokens.filter((_, i) => i % threads === t),
          perToken,
        ),
      );
    }
    const opened = await Promise.all(
      clients.map((client) => client.ask<{ opened: number; failed: number }>({ type: 'open' }, 'opened')),
    );
    const openCount = opened.reduce((sum, o) => sum + o.opened, 0);
    if (openCount < result.sockets) throw new Error(`only ${openCount} of ${result.sockets} sockets opened`);
    options.print(`${openCount} sockets open in ${seconds(openStarted)} s`);
    // Every socket receives a first (warm-up) post before anything is measured.
    const warm = await post(0);
    const until = Date.now() + FRAME_TIMEOUT_MS;
    for (;;) {
      const counts = await Promise.all(
        clients.map((client) => client.ask<{ n: number }>({ type: 'count', id: warm.id }, 'count')),
      );
      if (counts.reduce((sum, c) => sum + c.n, 0) >= result.sockets) break;
      if (Date.now() > until)
        throw new Error(`the warm-up post did not reach every socket in ${FRAME_TIMEOUT_MS} ms`);
      await delay(100);
    }
    await delay(2000);
    const rssAfter = await rssOf(server.pid);
    if (rssBefore !== undefined && rssAfter !== undefined) {
      result.memory = {
        rssBeforeMb: rssBefore / 1024 / 1024,
        rssAfterMb: rssAfter / 1024 / 1024,
        bytesPerSocket: (rssAfter - rssBefore) / result.sockets,
      };
    }

    const loadBefore = Math.round((loadavg()[0] ?? 0) * 100) / 100;
    const serverCpuBefore = await cpuSecondsOf(server.pid);
    const clientCpuBefore = process.cpuUsage();
    const wallBefore = performance.now();
    const sent: Array<{ id: string; sentAt: number; answeredAt: number }> = [];
    for (let n = 1; n <= options.posts; n++) {
      if (options.signal?.aborted) throw new Error('interrupted');
      const next = performance.now() + options.intervalMs;
      sent.push(await post(n));
      await delay(Math.max(0, next - performance.now()));
    }
    // The last post's frames, or the bound.
    const last = sent[sent.length - 1]!;
    const lastUntil = Date.now() + FRAME_TIMEOUT_MS;
    while (Date.now() < lastUntil) {
      const counts = await Promise.all(
        clients.map((client) => client.ask<{ n: number }>({ type: 'count', id: last.id }, 'count')),
      );
      if (counts.reduce((sum, c) => sum + c.n, 0) >= result.sockets) break;
      await delay(100);
    }
    await delay(500);
    const collected = await Promise.all(
      clients.map((client) =>
        client.ask<{ arrivals: Record<string, Float64Array>; closed: number }>(
          { type: 'collect' },
          'collected',
        ),
      ),
    );
    result.loadAverage = [loadBefore, Math.round((loadavg()[0] ?? 0) * 100) / 100];
    const serverCpuAfter = await cpuSecondsOf(server.pid);
    const clientCpu = process.cpuUsage(clientCpuBefore);
    if (serverCpuBefore !== undefined && serverCpuAfter !== undefined) {
      result.cpu = {
        serverSeconds: serverCpuAfter - serverCpuBefore,
        clientSeconds: (clientCpu.user + clientCpu.system) / 1e6,
        wallSeconds: (performance.now() - wallBefore) / 1000,
      };
    }

    const delivery: number[] = [];
    const spread: number[] = [];
    let first = Infinity;
    let lastFrame = 0;
    for (const { id, answeredAt } of sent) {
      const times: number[] = [];
      for (const { arrivals } of collected) for (const at of arrivals[id] ?? []) times.push(at);
      if (times.length === 0) continue;
      const earliest = Math.min(...times);
      first = Math.min(first, earliest);
      for (const at of times) {
        delivery.push(at - answeredAt);
        spread.push(at - earliest);
        if (at > lastFrame) lastFrame = at;
      }
    }
    const expected = options.posts * result.sockets;
    const closedEarly = collected.reduce((sum, c) => sum + c.closed, 0);
    result.framesExpected = expected;
    result.framesReceived = delivery.length;
    result.framesPerSecond = lastFrame > first ? delivery.length / ((lastFrame - first) / 1000) : 0;
    result.delivery = latencyFigures(delivery, expected - delivery.length);
    result.spread = latencyFigures(spread);
    result.post = latencyFigures(sent.map((s) => s.answeredAt - s.sentAt));
    if (delivery.length < expected)
      result.problems.push(`${expected - delivery.length} frame(s) never arrived`);
    if (closedEarly > 0) result.problems.push(`${closedEarly} socket(s) closed by the server during the run`);

    // Bad input of the issue: one token opening more sockets than it may.
    result.cap = await tryCap(url, author.token);
    if (result.cap.opened !== PER_TOKEN_CAP) {
      result.problems.push(`one token opened ${result.cap.opened} sockets (cap ${PER_TOKEN_CAP})`);
    }
    result.verdict = streamingVerdict(result.framesPerSecond, result.delivery, expected - delivery.length);
    if (result.problems.length > 0) result.outcome = 'errors';
  } catch (error) {
    result.outcome = 'failed';
    result.problems.push((error as Error).message);
    if (server) result.problems.push(`server output:\n${server.output().slice(-2000)}`);
  } finally {
    await Promise.all(clients.map((client) => client.stop()));
    await server?.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
  return result;
}
