// The home fan-out benchmark (`pnpm bench --only fanout`, part of a full run; issue 15 §Performance):
// an author with 10,000 local followers posts N statuses through POST /api/v1/statuses at a steady
// pace; each post's time until every follower's home feed holds it is read from the feed table,
// and the POST latencies are kept alongside. Its own server and database, like the upload bench.
import { rm } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { createSequelize, QueryTypes } from '@agora/db';
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
import { FAN_OUT_FOLLOWERS, seedFanOut } from './seeds-microblog.js';
import { latencyFigures, type LatencyFigures } from './uploads.js';

const HOST = BENCH_HOST;

/** Every follower's feed holds the status within this (issue 15). */
export const FAN_OUT_LIMIT_MS = 1000;
/** POST /api/v1/statuses p99 bound (issue 15). */
export const POST_P99_LIMIT_MS = 50;
/** How often the feed table is read while posts are pending. */
const POLL_MS = 10;
/** A post not fanned out after this is reported as failed. */
const GIVE_UP_MS = 30_000;

export interface FanOutOptions extends BenchEnvironment {
  /** Posts sent. */
  posts: number;
  /** Milliseconds between the starts of two posts (posts overlap fan-outs when shorter than one). */
  intervalMs: number;
}

export interface FanOutResult extends BenchOutcome {
  followers: number;
  posts: number;
  intervalMs: number;
  /** POST /api/v1/statuses response times (ms). */
  post?: LatencyFigures;
  /** From sending the POST to the last follower's feed row (ms). */
  fanOut?: LatencyFigures;
  verdict: 'PASS' | 'BELOW' | 'NOT MEASURED';
  loadAverage?: [number, number];
}

interface Pending {
  id: string;
  sentAt: number;
}

/** The verdict of the two bounds. */
export function fanOutVerdict(
  post: LatencyFigures,
  fanOut: LatencyFigures,
  errors: number,
): FanOutResult['verdict'] {
  if (post.count === 0 || fanOut.count === 0) return 'NOT MEASURED';
  return post.p99 <= POST_P99_LIMIT_MS && fanOut.max <= FAN_OUT_LIMIT_MS && errors === 0 ? 'PASS' : 'BELOW';
}

export function formatFanOutLines(result: FanOutResult): string[] {
  const { post, fanOut } = result;
  if (!post || !fanOut) return [`fan-out: ${result.outcome} — ${result.problems.join('; ')}`];
  const ms = (value: number) => (value < 10 ? value.toFixed(2) : value.toFixed(1));
  return [
    `${result.posts} posts, one every ${result.intervalMs} ms, by an author with ${result.followers.toLocaleString('en-US')} local followers` +
      (result.loadAverage ? `; load average ${result.loadAverage.join(' → ')}` : ''),
    `  POST /api/v1/statuses p50 ${ms(post.p50)} ms, p99 ${ms(post.p99)} ms, max ${ms(post.max)} ms`,
    `  every follower's feed holds the status after p50 ${ms(fanOut.p50)} ms, p99 ${ms(fanOut.p99)} ms, max ${ms(fanOut.max)} ms`,
    `target: POST p99 ${ms(post.p99)} ms (≤ ${POST_P99_LIMIT_MS}), fan-out max ${ms(fanOut.max)} ms (≤ ${FAN_OUT_LIMIT_MS}) ${result.verdict}`,
  ];
}

export async function runFanOutBench(options: FanOutOptions): Promise<FanOutResult> {
  const result: FanOutResult = {
    outcome: 'ok',
    problems: [],
    followers: FAN_OUT_FOLLOWERS,
    posts: options.posts,
    intervalMs: options.intervalMs,
    verdict: 'NOT MEASURED',
  };
  const dataDir = join(options.dataDir, 'fanout');
  let server: RunningServer | undefined;
  let sequelize: ReturnType<typeof createSequelize> | undefined;
  try {
    const databaseUrl = await options.createDatabase('fanout');
    const port = await freePort(HOST);
    server = await launchServer(
      serviceSpec(options, { name: 'microblog', entry: SERVICE_ENTRY.microblog, port, databaseUrl, dataDir }),
    );
    const { author, followers } = await seedFanOut({ baseUrl: server.url, databaseUrl });
    result.followers = followers;
    sequelize = createSequelize({ url: databaseUrl, poolMax: 1 });
    const db = sequelize;
    const headers = { authorization: `Bearer ${author.token}`, 'content-type': 'application/json' };
    const postOne = async (n: number): Promise<{ id: string; sentAt: number; ms: number }> => {
      const sentAt = performance.now();
      const response = await fetch(`${server!.url}/api/v1/statuses`, {
        method: 'POST',
        headers,
        body: JSON.stringify({ status: `Fan-out bench post ${n}: hello to all ${followers} followers` }),
        signal: AbortSignal.timeout(GIVE_UP_MS),
      });
      const text = await response.text();
      const ms = performance.now() - sentAt;
      if (response.status !== 200)
        throw new Error(`POST /api/v1/statuses → ${response.status}: ${text.slice(0, 200)}`);
      return { id: String((JSON.parse(text) as { id: unknown }).id), sentAt, ms };
    };
    // One post (not counted) warms the request path and the job's query up.
    const warm = await postOne(0);
    await untilFannedOut(db, [{ id: warm.id, sentAt: warm.sentAt }], followers + 1, options.signal);

    const loadBefore = Math.round((loadavg()[0] ?? 0) * 100) / 100;
    const postTimes: number[] = [];
    const fanOutTimes: number[] = [];
    const pending: Pending[] = [];
    const posting = (async () => {
      for (let n = 1; n <= options.posts; n++) {
        if (options.signal?.aborted) break;
        const next = performance.now() + options.intervalMs;
        const sent = await postOne(n);
        postTimes.push(sent.ms);
        pending.push({ id: sent.id, sentAt: sent.sentAt });
        await delay(Math.max(0, next - performance.now()));
      }
    })();
    let postingDone = false;
    void posting.then(
      () => (postingDone = true),
      () => (postingDone = true),
    );
    const deadline = () => performance.now() + GIVE_UP_MS;
    let giveUpAt = deadline();
    while (!postingDone || pending.length > 0) {
      if (options.signal?.aborted) throw new Error('interrupted');
      if (pending.length > 0) {
        const counts = await feedCounts(
          db,
          pending.map((p) => p.id),
        );
        const now = performance.now();
        for (let i = pending.length - 1; i >= 0; i--) {
          const entry = pending[i]!;
          if ((counts.get(entry.id) ?? 0) >= followers + 1) {
            fanOutTimes.push(now - entry.sentAt);
            pending.splice(i, 1);
            giveUpAt = deadline();
          }
        }
        if (now > giveUpAt) {
          result.problems.push(`${pending.length} post(s) not fanned out after ${GIVE_UP_MS} ms`);
          break;
        }
      }
      await delay(POLL_MS);
    }
    await posting;
    result.post = latencyFigures(postTimes);
    result.fanOut = latencyFigures(fanOutTimes, options.posts - fanOutTimes.length);
    result.loadAverage = [loadBefore, Math.round((loadavg()[0] ?? 0) * 100) / 100];
    result.verdict = fanOutVerdict(result.post, result.fanOut, result.fanOut.errors);
    if (result.problems.length > 0) result.outcome = 'errors';
  } catch (error) {
    result.outcome = 'failed';
    result.problems.push((error as Error).message);
    if (server) result.problems.push(`server output:\n${server.output().slice(-2000)}`);
  } finally {
    await sequelize?.close();
    await server?.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
  return result;
}

/** Feed rows per status (the followers' and the author's own). */
async function feedCounts(
  sequelize: ReturnType<typeof createSequelize>,
  ids: string[],
): Promise<Map<string, number>> {
  const rows = await sequelize.query<{ id: string; n: number }>(
    `SELECT status_id::text AS id, count(*)::int AS n FROM home_feed
      WHERE status_id = ANY($1::bigint[]) GROUP BY status_id`,
    { bind: [ids], type: QueryTypes.SELECT },
  );
  return new Map(rows.map((row) => [row.id, row.n]));
}

async function untilFannedOut(
  sequelize: ReturnType<typeof createSequelize>,
  pending: Pending[],
  rows: number,
  signal: AbortSignal | undefined,
): Promise<void> {
  const until = performance.now() + GIVE_UP_MS;
  for (;;) {
    if (signal?.aborted) throw new Error('interrupted');
    const counts = await feedCounts(
      sequelize,
      pending.map((p) => p.id),
    );
    if (pending.every((p) => (counts.get(p.id) ?? 0) >= rows)) return;
    if (performance.now() > until)
      throw new Error(`the first post was not fanned out within ${GIVE_UP_MS} ms`);
    await delay(POLL_MS);
  }
}
