// The upload benchmark (`pnpm bench --only uploads`, part of a full run): a 1 MB JPEG through each
// service's upload API from a few concurrent loops, while GET /health is probed in sequence to see
// whether the event loop stays free. The same probe with no upload running is the baseline.
import { rm } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setTimeout as delay } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import sharp from 'sharp';
import {
  freePort,
  launchServer,
  type RunningServer,
  type BenchEnvironment,
  serviceSpec,
  BENCH_HOST,
} from './processes.js';
import { percentile } from './report.js';
import { SERVICE_ENTRY, type ServiceName } from './scenarios.js';
import { createConfirmedUsers, eventsAccessToken, eventsProfile, microblogUserToken } from './seeds.js';

const HOST = BENCH_HOST;

/** Concurrent upload loops per service. */
export const UPLOAD_LOOPS = 4;
/** The verdict's bound on GET /health p99 while uploads run. */
export const HEALTH_P99_LIMIT_MS = 50;
/** Pause between the start of one health probe and the next (sooner when a probe took longer). */
export const PROBE_INTERVAL_MS = 10;
/** The input: this many pixels of noise, encoded at the JPEG quality whose size is closest to the target. */
export const IMAGE = { width: 1200, height: 900, targetBytes: 1_000_000, seed: 0x5eed };
/** Bounds: uploads per service, one request, waiting for background processing after the last one. */
const MAX_UPLOADS = 1000;
const UPLOAD_TIMEOUT_MS = 120_000;
const PROBE_TIMEOUT_MS = 10_000;
const DRAIN_TIMEOUT_MS = 60_000;
const POLL_INTERVAL_MS = 250;
/** Failures in a row after which a service is given up (it crashed, or refuses every upload). */
const MAX_FAILURES_IN_A_ROW = 20;

// ---------------------------------------------------------------------------------------------
// The input image

/** Deterministic noise (xorshift32): the same bytes, hence the same JPEG size, in every run. */
export function noise(length: number, seed: number): Buffer {
  const bytes = Buffer.alloc(length);
  let state = seed >>> 0 || 1;
  for (let i = 0; i < length; i++) {
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    bytes[i] = state & 0xff;
  }
  return bytes;
}

/**
 * The quality in [low, high] whose encoded size is closest to `targetBytes`, by binary search on
 * the (monotonic) size; each quality is encoded at most once.
 */
export async function closestQuality(
  sizeAt: (quality: number) => Promise<number>,
  targetBytes: number,
  low = 50,
  high = 100,
): Promise<number> {
  const sizes = new Map<number, number>();
  const size = async (quality: number) => {
    let known = sizes.get(quality);
    if (known === undefined) sizes.set(quality, (known = await sizeAt(quality)));
    return known;
  };
  let a = low;
  let b = high;
  // The lowest quality that reaches the target (or `high` when none does).
  while (a < b) {
    const mid = Math.floor((a + b) / 2);
    if ((await size(mid)) >= targetBytes) b = mid;
    else a = mid + 1;
  }
  if (a > low && Math.abs((await size(a - 1)) - targetBytes) < Math.abs((await size(a)) - targetBytes)) {
    return a - 1;
  }
  return a;
}

const SOI = Buffer.from([0xff, 0xd8]);

/**
 * The JPEG with a comment (COM segment) right after its start marker: other bytes and another
 * SHA-256, the same pixels. The services spot repeated uploads by hash; each upload carries its own.
 */
export function withJpegComment(jpeg: Buffer, comment: string): Buffer {
  if (jpeg.length < 4 || !jpeg.subarray(0, 2).equals(SOI)) throw new Error('not a JPEG (no FF D8 start)');
  const text = Buffer.from(comment, 'utf8');
  // The length field counts itself and is 16 bits wide.
  if (text.length + 2 > 0xffff) throw new Error(`JPEG comment too long: ${text.length} bytes`);
  const header = Buffer.from([0xff, 0xfe, (text.length + 2) >> 8, (text.length + 2) & 0xff]);
  return Buffer.concat([SOI, header, text, jpeg.subarray(2)]);
}

export interface BenchImage {
  jpeg: Buffer;
  width: number;
  height: number;
  quality: number;
  bytes: number;
}

/** Noise of IMAGE's size as a JPEG of about IMAGE.targetBytes; made once per run. */
export async function makeBenchImage(image = IMAGE): Promise<BenchImage> {
  const { width, height } = image;
  const pixels = noise(width * height * 3, image.seed);
  const encode = (quality: number) =>
    sharp(pixels, { raw: { width, height, channels: 3 } })
      .jpeg({ quality })
      .toBuffer();
  const quality = await closestQuality(async (q) => (await encode(q)).length, image.targetBytes);
  const jpeg = await encode(quality);
  return { jpeg, width, height, quality, bytes: jpeg.length };
}

// ---------------------------------------------------------------------------------------------
// Figures

export interface LatencyFigures {
  /** Probes answered 200; the percentiles are over these. */
  count: number;
  /** Probes that failed (not 200, connection error, timeout). */
  errors: number;
  mean: number;
  p50: number;
  p99: number;
  max: number;
}

const round = (value: number, digits: number) => {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
};

/** Nearest-rank p50/p99 (as the HTTP table) of response times in ms. */
export function latencyFigures(samples: readonly number[], errors = 0): LatencyFigures {
  const sorted = Float64Array.from(samples).sort();
  const sum = sorted.reduce((total, value) => total + value, 0);
  const ms = (value: number | undefined) => round(value ?? 0, 3);
  return {
    count: sorted.length,
    errors,
    mean: ms(sorted.length > 0 ? sum / sorted.length : 0),
    p50: ms(percentile(sorted, 50)),
    p99: ms(percentile(sorted, 99)),
    max: ms(sorted[sorted.length - 1]),
  };
}

export type HealthVerdict = 'PASS' | 'BELOW' | 'NOT MEASURED';

export function healthVerdict(underLoad: LatencyFigures, limitMs = HEALTH_P99_LIMIT_MS): HealthVerdict {
  if (underLoad.count === 0) return 'NOT MEASURED';
  return underLoad.p99 < limitMs && underLoad.errors === 0 ? 'PASS' : 'BELOW';
}

/** One upload: when it was sent, answered and done (processed), in ms of performance.now(). */
export interface UploadRecord {
  startedAt: number;
  respondedAt?: number;
  status?: number;
  /** Answered with a success: processed at once, or taken for processing. */
  accepted?: boolean;
  /** The media id, while the service still processes it. */
  id?: string;
  processedAt?: number;
  problem?: string;
}

export interface UploadFigures {
  sent: number;
  /** Answered with a success (processed at once, or accepted for processing). */
  accepted: number;
  processed: number;
  failed: number;
  /** From the first request to the last upload processed. */
  windowSec: number;
  uploadsPerSec: number;
  megabytesPerSec: number;
  /** Accepted uploads over the time from the first request to the last accepting answer. */
  acceptedPerSec: number;
  statusCodes: Record<string, number>;
  /** Distinct failures with how often each happened. */
  problems: string[];
}

/** Uploads/s counts an upload once it is processed: processed ones over first request → last processed. */
export function summarizeUploads(records: readonly UploadRecord[], bytesEach: number): UploadFigures {
  const statusCodes: Record<string, number> = {};
  const problems = new Map<string, number>();
  let first = Infinity;
  let lastProcessed = -Infinity;
  let lastAccepted = -Infinity;
  let accepted = 0;
  let processed = 0;
  for (const record of records) {
    first = Math.min(first, record.startedAt);
    if (record.status !== undefined) {
      statusCodes[String(record.status)] = (statusCodes[String(record.status)] ?? 0) + 1;
    }
    if (record.problem !== undefined) {
      problems.set(record.problem, (problems.get(record.problem) ?? 0) + 1);
    }
    if (record.accepted && record.respondedAt !== undefined) {
      accepted += 1;
      lastAccepted = Math.max(lastAccepted, record.respondedAt);
    }
    if (record.processedAt !== undefined && record.problem === undefined) {
      processed += 1;
      lastProcessed = Math.max(lastProcessed, record.processedAt);
    }
  }
  const windowMs = processed > 0 ? lastProcessed - first : 0;
  const acceptMs = accepted > 0 ? lastAccepted - first : 0;
  const perSec = (count: number, ms: number) => (ms > 0 ? round(count / (ms / 1000), 2) : 0);
  return {
    sent: records.length,
    accepted,
    processed,
    failed: records.length - processed,
    windowSec: round(windowMs / 1000, 3),
    uploadsPerSec: perSec(processed, windowMs),
    megabytesPerSec: windowMs > 0 ? round((processed * bytesEach) / 1e6 / (windowMs / 1000), 2) : 0,
    acceptedPerSec: perSec(accepted, acceptMs),
    statusCodes,
    problems: [...problems].map(([problem, count]) => `${count}× ${problem}`),
  };
}

// ---------------------------------------------------------------------------------------------
// What the services answer

/** An upload's state as an answer tells it. */
export type UploadReply =
  { state: 'processed' } | { state: 'pending'; id: string } | { state: 'failed'; problem: string };

function parseObject(body: string): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(body) as unknown;
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

const failed = (problem: string): UploadReply => ({ state: 'failed', problem: problem.slice(0, 200) });

/** GraphQL `uploadMedia`: processed when it answers, so a Media with its url is done. */
export function readEventsUpload(status: number, body: string): UploadReply {
  const value = parseObject(body);
  if (Array.isArray(value?.errors) && value.errors.length > 0) {
    const [error] = value.errors as Array<{ message?: unknown; extensions?: { code?: unknown } }>;
    return failed(`status ${status}: ${String(error?.extensions?.code ?? '')} ${String(error?.message)}`);
  }
  if (status !== 200) return failed(`status ${status}: ${body.slice(0, 120)}`);
  const data = value?.data as { uploadMedia?: { url?: unknown } | null } | undefined;
  return typeof data?.uploadMedia?.url === 'string'
    ? { state: 'processed' }
    : failed(`status 200 without data.uploadMedia.url: ${body.slice(0, 120)}`);
}

/**
 * A Mastodon MediaAttachment: 200 with its `url` is processed; 202 (upload) or 206 (GET) with an id
 * and no url is still processing.
 */
export function readMicroblogMedia(status: number, body: string): UploadReply {
  const value = parseObject(body);
  if (status === 200 && typeof value?.url === 'string') return { state: 'processed' };
  if ((status === 202 || status === 206) && typeof value?.id === 'string' && (value.url ?? null) === null) {
    return { state: 'pending', id: value.id };
  }
  return failed(`status ${status}: ${body.slice(0, 120)}`);
}

// ---------------------------------------------------------------------------------------------
// Clients

interface UploadClient {
  upload(jpeg: Buffer, n: number): Promise<{ status: number; reply: UploadReply }>;
  /** The state of an upload that answered pending. */
  check?(id: string): Promise<{ status: number; reply: UploadReply }>;
  /** What the answers showed about the run (e.g. whether a rate limit counted the uploads). */
  observed?(): string[];
}

interface UploadApi {
  service: ServiceName;
  label: string;
  /** Server environment beyond the bench's usual one. */
  env: Record<string, string>;
  /** What the reader needs to know about how the figures were obtained. */
  notes: string[];
  /** Seeds one user through the public API (and its database) and returns an uploader acting as them. */
  connect(baseUrl: string, databaseUrl: string): Promise<UploadClient>;
}

async function post(url: string, form: FormData, headers: Record<string, string>) {
  const response = await fetch(url, {
    method: 'POST',
    headers,
    body: form,
    signal: AbortSignal.timeout(UPLOAD_TIMEOUT_MS),
  });
  return { status: response.status, headers: response.headers, body: await response.text() };
}

export const EVENTS_UPLOAD_MUTATION =
  'mutation UploadMedia($file: Upload!, $name: String!) { uploadMedia(file: $file, name: $name) { id url } }';

/** The GraphQL multipart request spec: `operations` with the file variable null, `map`, then the file. */
export function eventsUploadForm(jpeg: Buffer, name: string): FormData {
  const form = new FormData();
  form.append(
    'operations',
    JSON.stringify({
      operationName: 'UploadMedia',
      query: EVENTS_UPLOAD_MUTATION,
      variables: { file: null, name },
    }),
  );
  form.append('map', JSON.stringify({ 0: ['variables.file'] }));
  form.append('0', new Blob([jpeg], { type: 'image/jpeg' }), name);
  return form;
}

const EVENTS_API: UploadApi = {
  service: 'events',
  label: 'events GraphQL uploadMedia',
  env: {},
  notes: ['RATE_LIMIT_SAFELIST=127.0.0.1 lifts the uploadMedia limit (60 per IP per minute)'],
  async connect(baseUrl, databaseUrl) {
    const [user] = await createConfirmedUsers(databaseUrl, 1);
    const token = await eventsAccessToken(baseUrl, user!);
    await eventsProfile(baseUrl, token);
    return {
      async upload(jpeg, n) {
        const { status, body } = await post(`${baseUrl}/api`, eventsUploadForm(jpeg, `bench-${n}.jpg`), {
          authorization: `Bearer ${token}`,
        });
        return { status, reply: readEventsUpload(status, body) };
      },
    };
  },
};

const MICROBLOG_API: UploadApi = {
  service: 'microblog',
  label: 'microblog POST /api/v2/media',
  env: {},
  notes: ['one user uploads: RATE_LIMIT_SAFELIST=127.0.0.1 is meant to lift its media limit (30 per 30 min)'],
  async connect(baseUrl, databaseUrl) {
    const token = await microblogUserToken(baseUrl, databaseUrl);
    const authorization = `Bearer ${token}`;
    // A limit that counts a request says so in X-RateLimit-Limit; a safelisted request has none.
    const limits = new Set<string>();
    return {
      async upload(jpeg, n) {
        const form = new FormData();
        form.append('file', new Blob([jpeg], { type: 'image/jpeg' }), `bench-${n}.jpg`);
        const { status, headers, body } = await post(`${baseUrl}/api/v2/media`, form, { authorization });
        const limit = headers.get('x-ratelimit-limit');
        if (limit !== null) limits.add(limit);
        return { status, reply: readMicroblogMedia(status, body) };
      },
      observed: () => [
        limits.size === 0
          ? 'no upload answer carried X-RateLimit-* headers: the safelist lifted the limits'
          : `upload answers carried X-RateLimit-Limit ${[...limits].join(', ')}: a limit counted them (429s are failures)`,
      ],
      async check(id) {
        const response = await fetch(`${baseUrl}/api/v1/media/${id}`, {
          headers: { authorization },
          signal: AbortSignal.timeout(PROBE_TIMEOUT_MS),
        });
        const status = response.status;
        return { status, reply: readMicroblogMedia(status, await response.text()) };
      },
    };
  },
};

export const UPLOAD_APIS: readonly UploadApi[] = [EVENTS_API, MICROBLOG_API];

// ---------------------------------------------------------------------------------------------
// Measuring

interface Prober {
  /** Ends the probing (again: no-op) and summarizes what it measured. */
  stop(): Promise<LatencyFigures>;
}

// The prober's loop, run on a thread of its own: the uploads keep the bench's main thread busy
// (tens of ms of lag), which would otherwise be measured as the server's latency.
const PROBER_SOURCE = `
const { get, Agent } = require('node:http');
const { parentPort, workerData } = require('node:worker_threads');
const { baseUrl, intervalMs, timeoutMs } = workerData;
const agent = new Agent({ keepAlive: true, maxSockets: 1 });
const samples = [];
let errors = 0;
let stopped = false;
parentPort.on('message', () => { stopped = true; });
const once = () => new Promise((resolve, reject) => {
  const request = get(baseUrl + '/health', { agent, timeout: timeoutMs }, (response) => {
    response.on('error', reject);
    response.on('end', () => resolve(response.statusCode));
    response.resume();
  });
  request.on('timeout', () => request.destroy(new Error('health probe timed out')));
  request.on('error', reject);
});
(async () => {
  while (!stopped) {
    const started = performance.now();
    const status = await once().catch(() => 0);
    const ms = performance.now() - started;
    if (status === 200) samples.push(ms); else errors += 1;
    const wait = intervalMs - ms;
    if (wait > 0 && !stopped) await new Promise((resolve) => setTimeout(resolve, wait));
  }
  agent.destroy();
  parentPort.postMessage({ samples, errors });
})();
`;

/** GET /health one after another on one kept-alive socket, about every PROBE_INTERVAL_MS, on its own thread. */
function startProber(baseUrl: string): Prober {
  const worker = new Worker(PROBER_SOURCE, {
    eval: true,
    workerData: { baseUrl, intervalMs: PROBE_INTERVAL_MS, timeoutMs: PROBE_TIMEOUT_MS },
  });
  const result = new Promise<LatencyFigures>((resolve, reject) => {
    worker.once('message', (message: { samples: number[]; errors: number }) =>
      resolve(latencyFigures(message.samples, message.errors)),
    );
    worker.once('error', reject);
  });
  let stopping: Promise<LatencyFigures> | undefined;
  return {
    stop() {
      stopping ??= (async () => {
        worker.postMessage('stop');
        try {
          return await result;
        } finally {
          await worker.terminate();
        }
      })();
      return stopping;
    },
  };
}

/** Sends upload `n` (its own comment, so its own hash) and records how it was answered. */
async function uploadOne(client: UploadClient, jpeg: Buffer, n: number): Promise<UploadRecord> {
  const body = withJpegComment(jpeg, `agora bench upload ${n}`);
  const record: UploadRecord = { startedAt: performance.now() };
  const { status, reply } = await client
    .upload(body, n)
    .catch((error: Error) => ({ status: 0, reply: failed(`request failed: ${error.message}`) }));
  record.respondedAt = performance.now();
  if (status !== 0) record.status = status;
  if (reply.state === 'failed') {
    record.problem = reply.problem;
    return record;
  }
  record.accepted = true;
  if (reply.state === 'processed') record.processedAt = record.respondedAt;
  else record.id = reply.id;
  return record;
}

/** Polls the uploads still processing (sparingly: they are only looked at once the sending is over). */
async function drain(client: UploadClient, records: UploadRecord[], signal: AbortSignal | undefined) {
  const pending = () =>
    records.filter((r) => r.id !== undefined && r.processedAt === undefined && r.problem === undefined);
  const deadline = performance.now() + DRAIN_TIMEOUT_MS;
  while (client.check && pending().length > 0 && performance.now() < deadline && !signal?.aborted) {
    await delay(POLL_INTERVAL_MS);
    for (const record of pending()) {
      const { reply } = await client
        .check(record.id!)
        .catch((error: Error) => ({ reply: failed(`status check failed: ${error.message}`) }));
      if (reply.state === 'processed') record.processedAt = performance.now();
      else if (reply.state === 'failed') record.problem = `processing: ${reply.problem}`;
    }
  }
  for (const record of pending()) record.problem = `not processed within ${DRAIN_TIMEOUT_MS / 1000} s`;
}

/** UPLOAD_LOOPS loops upload one after another until the time is up; then what still processes is awaited. */
async function uploadFor(
  client: UploadClient,
  jpeg: Buffer,
  seconds: number,
  signal: AbortSignal | undefined,
): Promise<UploadRecord[]> {
  const records: UploadRecord[] = [];
  const deadline = performance.now() + seconds * 1000;
  let next = 0;
  let failuresInARow = 0;
  const loop = async () => {
    while (
      performance.now() < deadline &&
      next < MAX_UPLOADS &&
      failuresInARow < MAX_FAILURES_IN_A_ROW &&
      !signal?.aborted
    ) {
      const record = await uploadOne(client, jpeg, next++);
      records.push(record);
      failuresInARow = record.problem === undefined ? 0 : failuresInARow + 1;
    }
  };
  await Promise.all(Array.from({ length: UPLOAD_LOOPS }, loop));
  await drain(client, records, signal);
  return records;
}

export interface UploadServiceResult {
  service: ServiceName;
  api: string;
  outcome: 'ok' | 'errors' | 'failed';
  problems: string[];
  notes: string[];
  uploads?: UploadFigures;
  health?: { idle: LatencyFigures; underUploads: LatencyFigures };
  verdict: HealthVerdict;
  /** p99 of the event-loop delay of the bench thread that uploads (the prober runs on a thread of its own). */
  clientLagP99Ms?: number;
  /** 1-minute load average before the idle probe and after the uploads: other processes skew both. */
  loadAverage?: [number, number];
}

export interface UploadBenchResult {
  image: Omit<BenchImage, 'jpeg'>;
  loops: number;
  loadSec: number;
  idleSec: number;
  probeIntervalMs: number;
  p99LimitMs: number;
  services: UploadServiceResult[];
}

export interface UploadBenchOptions extends BenchEnvironment {
  /** Seconds of uploads per service, and of idle probing before them. */
  seconds: number;
}

async function measureService(
  api: UploadApi,
  image: BenchImage,
  options: UploadBenchOptions,
): Promise<UploadServiceResult> {
  const result: UploadServiceResult = {
    service: api.service,
    api: api.label,
    outcome: 'ok',
    problems: [],
    notes: api.notes,
    verdict: 'NOT MEASURED',
  };
  const dataDir = join(options.dataDir, `uploads-${api.service}`);
  let server: RunningServer | undefined;
  let prober: Prober | undefined;
  try {
    const databaseUrl = await options.createDatabase(`uploads_${api.service}`);
    const port = await freePort(HOST);
    server = await launchServer(
      serviceSpec(options, {
        name: api.service,
        entry: SERVICE_ENTRY[api.service],
        port,
        databaseUrl,
        dataDir,
        env: api.env,
      }),
    );
    const client = await api.connect(server.url, databaseUrl);
    // One upload (not counted) checks that the API works, and warms it up.
    const probe = await uploadOne(client, image.jpeg, MAX_UPLOADS);
    await drain(client, [probe], options.signal);
    if (probe.problem) throw new Error(`first upload failed: ${probe.problem}`);

    const loadBefore = round(loadavg()[0] ?? 0, 2);
    prober = startProber(server.url);
    await delay(options.seconds * 1000, undefined, { signal: options.signal });
    const idle = await prober.stop();

    const lag = monitorEventLoopDelay({ resolution: 5 });
    lag.enable();
    prober = startProber(server.url);
    const records = await uploadFor(client, image.jpeg, options.seconds, options.signal);
    const underUploads = await prober.stop();
    lag.disable();

    result.uploads = summarizeUploads(records, image.bytes);
    result.notes = [...result.notes, ...(client.observed?.() ?? [])];
    result.health = { idle, underUploads };
    result.verdict = healthVerdict(underUploads);
    result.clientLagP99Ms = round(lag.percentile(99) / 1e6, 1);
    result.loadAverage = [loadBefore, round(loadavg()[0] ?? 0, 2)];
    if (result.uploads.failed > 0 || result.uploads.processed === 0) {
      result.outcome = 'errors';
      result.problems.push(
        ...(result.uploads.problems.length ? result.uploads.problems : ['no upload processed']),
      );
    }
    if (idle.errors + underUploads.errors > 0) {
      result.outcome = 'errors';
      result.problems.push(`${idle.errors + underUploads.errors} failed health probes`);
    }
  } catch (error) {
    result.outcome = 'failed';
    result.problems.push((error as Error).message);
    if (server) result.problems.push(`server output:\n${server.output().slice(-2000)}`);
  } finally {
    await prober?.stop();
    await server?.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
  return result;
}

function ms(value: number): string {
  return value < 10 ? value.toFixed(2) : value.toFixed(1);
}

function health(figures: LatencyFigures): string {
  const errors = figures.errors > 0 ? `, ${figures.errors} failed` : '';
  return `p50 ${ms(figures.p50)} ms, p99 ${ms(figures.p99)} ms (${figures.count} probes${errors})`;
}

/** The lines printed for one service: its rate, its health figures, and the verdict. */
export function formatServiceLines(result: UploadServiceResult, limitMs = HEALTH_P99_LIMIT_MS): string[] {
  const { uploads: u, health: h } = result;
  if (!u || !h) return [`${result.api}: ${result.outcome} — ${result.problems.join('; ')}`];
  return [
    `${result.api}: ${u.uploadsPerSec.toFixed(2)} uploads/s (${u.megabytesPerSec.toFixed(2)} MB/s) processed, ` +
      `accepted ${u.acceptedPerSec.toFixed(2)}/s; ${u.processed} of ${u.sent} in ${u.windowSec.toFixed(1)} s, ${u.failed} failed`,
    `  GET /health idle ${health(h.idle)}`,
    `  GET /health under uploads ${health(h.underUploads)}; bench upload-thread lag p99 ${ms(result.clientLagP99Ms ?? 0)} ms` +
      (result.loadAverage ? `; load average ${result.loadAverage.join(' → ')}` : ''),
    `target: ${result.service} GET /health p99 under uploads ${ms(h.underUploads.p99)} ms ` +
      `(idle ${ms(h.idle.p99)} ms; target < ${limitMs} ms) ${result.verdict}`,
  ];
}

/** Each service in turn: launch on a fresh database, seed, probe idle, then probe under uploads. */
export async function runUploadBench(options: UploadBenchOptions): Promise<UploadBenchResult> {
  const image = await makeBenchImage();
  options.print(
    `input: ${image.width}×${image.height} noise JPEG at quality ${image.quality}, ${image.bytes.toLocaleString('en-US')} bytes ` +
      `(+ a distinct comment per upload); ${UPLOAD_LOOPS} upload loops for ${options.seconds} s per service, ` +
      `GET /health every ${PROBE_INTERVAL_MS} ms (idle for ${options.seconds} s first)`,
  );
  const services: UploadServiceResult[] = [];
  for (const api of UPLOAD_APIS) {
    if (options.signal?.aborted) break;
    const result = await measureService(api, image, options);
    for (const line of formatServiceLines(result)) options.print(line);
    for (const note of result.notes) options.print(`  note: ${note}`);
    if (result.outcome === 'errors') options.print(`  ! ${result.problems.join('; ')}`);
    services.push(result);
  }
  const { jpeg: _jpeg, ...described } = image;
  return {
    image: described,
    loops: UPLOAD_LOOPS,
    loadSec: options.seconds,
    idleSec: options.seconds,
    probeIntervalMs: PROBE_INTERVAL_MS,
    p99LimitMs: HEALTH_P99_LIMIT_MS,
    services,
  };
}
