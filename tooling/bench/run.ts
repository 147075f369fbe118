import { randomBytes } from 'node:crypto';
// `pnpm bench`: measures the services in production mode against three baselines in the same run.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import { ConfigError, createLogger, processEnv } from '@agora/core';
import { loadBenchConfig, selectParts, UsageError, USAGE, type BenchConfig } from './config.js';
import { obtainPostgres, type BenchPostgres } from './database.js';
import {
  freePort,
  killAllServersNow,
  launchServer,
  stopAllServers,
  type LaunchSpec,
  type RunningServer,
  BENCH_HOST,
  REPO_ROOT,
} from './processes.js';
import {
  boundedMeasurement,
  boundedProblems,
  combineRounds,
  formatBoundedLine,
  formatRate,
  formatResultsTable,
  formatTargetLine,
  LatencySamples,
  loadProblems,
  roundFromLoad,
  targetLine,
  withRatios,
  type BoundedSample,
  type RoundResult,
  type TargetLine,
  type TargetResult,
} from './report.js';
import {
  BASELINES,
  SCENARIOS,
  SERVICE_ENTRY,
  boundedNote,
  boundedPlanProblems,
  selectScenarios,
  splitAcrossRounds,
  type Baseline,
  type BoundedMeasure,
  type BenchRequest,
  type ResponseCheck,
  type Scenario,
} from './scenarios.js';
import type { Seeded } from './seeds.js';
import { runUploadBench, type UploadBenchResult } from './uploads.js';
import { formatFanOutLines, runFanOutBench, type FanOutResult } from './fanout.js';
import {
  formatGroupDeliveryLines,
  runGroupDeliveryBench,
  type GroupDeliveryResult,
} from './group-delivery.js';
import { formatStreamingLines, runStreamingBench, type StreamingResult } from './streaming.js';
import { formatDeliveryLines, runDeliveryBench, type DeliveryResult } from './delivery.js';

const BENCH_DIR = fileURLToPath(new URL('.', import.meta.url));
const TOOLING_DIR = join(BENCH_DIR, '..');
const ROOT_DIR = REPO_ROOT;
const HOST = BENCH_HOST;

/** One thing to measure: how to start it and what to send it. */
interface Target {
  id: string;
  name: string;
  kind: 'baseline' | 'scenario';
  service?: string;
  request: BenchRequest;
  check: ResponseCheck;
  seed?: (baseUrl: string) => Promise<Seeded>;
  bounded?: BoundedMeasure;
  /** Load connections, when the scenario names its own. */
  connections?: number;
  /** Why it cannot run (e.g. the service is not built), instead of a launch spec. */
  unavailable?: string;
  launch?: (port: number) => Promise<LaunchSpec>;
}

let currentLoad: autocannon.Instance | undefined;
let aborted = false;
let cleanup: (() => Promise<void>) | undefined;
const interrupted = new AbortController();

/** Only a few inherited variables reach the servers, so the shell's settings cannot skew a run. */
function childEnv(extra: Record<string, string>): Record<string, string> {
  const env = processEnv();
  const kept: Record<string, string> = {};
  for (const key of ['PATH', 'HOME', 'TMPDIR', 'LANG', 'TZ']) {
    const value = env[key];
    if (value) kept[key] = value;
  }
  // Production mode requires real secrets; a run makes throwaway ones.
  const secrets = {
    JWT_SECRET: randomBytes(48).toString('base64url'),
    SECRET_KEY_BASE: randomBytes(64).toString('hex'),
  };
  return { ...kept, NODE_ENV: 'production', HOST, LOG_LEVEL: 'warn', ...secrets, ...extra };
}

function baselineTarget(baseline: Baseline, pgServer: BenchPostgres): Target {
  return {
    id: baseline.id,
    name: baseline.name,
    kind: 'baseline',
    request: baseline.request,
    check: baseline.check,
    launch: async (port) => ({
      name: baseline.name,
      command: process.execPath,
      args: ['--import', 'tsx', join(BENCH_DIR, 'servers', baseline.server)],
      cwd: TOOLING_DIR,
      host: HOST,
      port,
      env: childEnv({
        PORT: String(port),
        ...(baseline.needsDatabase
          ? { DATABASE_URL: await pgServer.createDatabase(`baseline_${baseline.id}`) }
          : {}),
      }),
    }),
  };
}

function scenarioTarget(scenario: Scenario, pgServer: BenchPostgres, dataDir: string): Target {
  const entry = join(ROOT_DIR, SERVICE_ENTRY[scenario.service]);
  const planProblems = scenario.bounded ? boundedPlanProblems(scenario.bounded) : [];
  // Each scenario runs its own server on its own database, so seeds and rate-limit counters never mix.
  let databaseUrl: string | undefined;
  const { seed } = scenario;
  return {
    id: scenario.id,
    name: scenario.name,
    kind: 'scenario',
    service: scenario.service,
    request: scenario.request,
    check: scenario.check,
    ...(seed
      ? {
          seed: (baseUrl: string) => {
            if (!databaseUrl) throw new Error('seed before launch');
            return seed({ baseUrl, databaseUrl });
          },
        }
      : {}),
    ...(scenario.bounded ? { bounded: scenario.bounded } : {}),
    ...(scenario.connections ? { connections: scenario.connections } : {}),
    ...(!existsSync(entry)
      ? { unavailable: `${SERVICE_ENTRY[scenario.service]} not found (build the app: pnpm build)` }
      : planProblems.length > 0
        ? { unavailable: `its requests would hit its own rate limits: ${planProblems.join('; ')}` }
        : {}),
    launch: async (port) => ({
      name: scenario.service,
      command: process.execPath,
      args: [entry],
      cwd: ROOT_DIR,
      host: HOST,
      port,
      env: childEnv({
        PORT: String(port),
        DATABASE_URL: (databaseUrl = await pgServer.createDatabase(scenario.id)),
        DATA_DIR: join(dataDir, scenario.id),
        // Throughput runs send far more than 300 requests per 5 min from one address; bounded
        // scenarios (logins) keep the limits they are planned around.
        ...(scenario.bounded ? {} : { RATE_LIMIT_SAFELIST: HOST }),
        ...scenario.env,
      }),
    }),
  };
}

/** What one load sends: the same request on every connection, or a cycle of requests per connection. */
type LoadPlan = { request: BenchRequest } | { perConnection: BenchRequest[][] };

/** autocannon's per-request hook: connection k (numbered on its first request) cycles through its list. */
function cyclingRequests(perConnection: BenchRequest[][]): autocannon.Request[] {
  let connections = 0;
  return [
    {
      setupRequest: (req, context: { k?: number; i?: number }) => {
        context.k ??= connections++ % perConnection.length;
        const list = perConnection[context.k]!;
        const next = list[(context.i = ((context.i ?? -1) + 1) % list.length)]!;
        return {
          ...req,
          method: next.method,
          path: next.path,
          headers: next.headers ?? {},
          ...(next.body !== undefined ? { body: next.body } : {}),
        };
      },
    },
  ];
}

function runLoad(
  url: string,
  plan: LoadPlan,
  seconds: number,
  connections: number,
  samples?: LatencySamples,
) {
  const first = 'request' in plan ? plan.request : plan.perConnection[0]![0]!;
  return new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: url + first.path,
        method: first.method,
        ...(first.body !== undefined ? { body: first.body } : {}),
        ...(first.headers ? { headers: first.headers } : {}),
        ...('perConnection' in plan ? { requests: cyclingRequests(plan.perConnection) } : {}),
        connections,
        pipelining: 1,
        duration: seconds,
        timeout: 10,
      },
      (error, result) => {
        currentLoad = undefined;
        if (error) reject(error instanceof Error ? error : new Error(String(error)));
        else resolve(result);
      },
    );
    if (samples) {
      // Like autocannon's histogram: latencies of 2xx responses only.
      instance.on('response', (_client, statusCode, _bytes, responseTime) => {
        if (statusCode >= 200 && statusCode < 300) samples.record(responseTime);
      });
    }
    currentLoad = instance;
  });
}

/** A target whose server is up and answers as expected, with what its rounds measured so far. */
interface Running {
  target: Target;
  /** The requests with what the seed added: one for load, one per seeded body for bounded runs. */
  requests: BenchRequest[];
  /** What each load connection cycles through, when the seed gave one list per connection. */
  perConnection?: BenchRequest[][];
  boundedSamples: BoundedSample[];
  base: TargetResult;
  server: RunningServer;
  rounds: RoundResult[];
  samples: LatencySamples;
  /** Set when a round itself failed (autocannon error): the target is out of the remaining rounds. */
  failure?: string;
}

function baseResult(target: Target): TargetResult {
  return {
    id: target.id,
    name: target.name,
    kind: target.kind,
    ...(target.service ? { service: target.service } : {}),
    ...(target.bounded ? { mode: 'bounded' as const, note: boundedNote(target.bounded) } : {}),
    request: target.request,
    outcome: 'ok',
    problems: [],
    ratios: {},
  };
}

/** Starts the target's server, checks one response and seeds: a Running target, or why not. */
async function prepare(target: Target): Promise<Running | TargetResult> {
  const base = baseResult(target);
  if (target.unavailable || !target.launch) {
    console.log(`• ${target.name}: skipped — ${target.unavailable ?? 'no launcher'}`);
    return { ...base, outcome: 'skipped', problems: [target.unavailable ?? 'no launcher'] };
  }
  process.stdout.write(`• ${target.name}: starting… `);
  let server: RunningServer;
  try {
    server = await launchServer(await target.launch(await freePort(HOST)));
  } catch (error) {
    console.log('failed');
    return { ...base, outcome: 'failed', problems: [(error as Error).message] };
  }
  try {
    let seeded: Seeded = {};
    if (target.seed) {
      process.stdout.write('seeding… ');
      seeded = await target.seed(server.url);
    }
    const requests = withSeed(target.request, seeded);
    const perConnection = seeded.perConnection?.map((entry) =>
      entry.bodies.map((body) => ({
        ...target.request,
        headers: { ...target.request.headers, ...entry.headers },
        body,
      })),
    );
    const { method, path } = target.request;
    // A cycle is probed whole, so every connection starts from the state it expects.
    for (const request of perConnection?.[0] ?? [requests[0]!]) {
      const probe = await send(server.url, request, target.check);
      if (probe.problem) throw new Error(`unexpected response to ${method} ${path}: ${probe.problem}`);
    }
    console.log(`ready at ${server.url}`);
    return {
      target,
      base,
      server,
      requests,
      ...(perConnection?.length ? { perConnection } : {}),
      boundedSamples: [],
      rounds: [],
      samples: new LatencySamples(),
    };
  } catch (error) {
    console.log('failed');
    await server.stop();
    return { ...base, outcome: 'failed', problems: [(error as Error).message] };
  }
}

/** The scenario's request with the seed's headers; one per seeded body when there are bodies. */
function withSeed(request: BenchRequest, seeded: Seeded): BenchRequest[] {
  const headers = { ...request.headers, ...seeded.headers };
  const bodies = seeded.bodies?.length ? seeded.bodies : [request.body];
  return bodies.map((body) => ({ ...request, headers, ...(body !== undefined ? { body } : {}) }));
}

/** One request, timed from sending to the end of the body, checked like the probe. */
async function send(url: string, request: BenchRequest, check: ResponseCheck): Promise<BoundedSample> {
  const started = performance.now();
  const response = await fetch(url + request.path, {
    method: request.method,
    ...(request.body !== undefined ? { body: request.body } : {}),
    ...(request.headers ? { headers: request.headers } : {}),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await response.text();
  const ms = performance.now() - started;
  const problem = check(response.status, text);
  return { status: response.status, ms, ...(problem ? { problem } : {}) };
}

function loadPlan(run: Running): LoadPlan {
  return run.perConnection ? { perConnection: run.perConnection } : { request: run.requests[0]! };
}

function connectionsOf(run: Running, config: BenchConfig): number {
  return run.target.connections ?? config.connections;
}

function isRunning(value: Running | TargetResult): value is Running {
  return 'server' in value;
}

/**
 * Every server stays up and the rounds take turns across targets, so a slow-down of the machine
 * during the run hits baselines and scenarios alike instead of skewing their ratios.
 */
async function measureAll(targets: Target[], config: BenchConfig): Promise<TargetResult[]> {
  const prepared: (Running | TargetResult)[] = [];
  for (const target of targets) {
    if (aborted) throw new Error('interrupted');
    prepared.push(await prepare(target));
  }
  const running = prepared.filter(isRunning);
  const loaded = running.filter((r) => !r.target.bounded);
  const slice = config.durationSec / config.rounds;

  if (config.warmupSec > 0 && loaded.length > 0) {
    process.stdout.write(`\nwarm-up ${config.warmupSec} s each… `);
    for (const run of loaded) {
      if (aborted) throw new Error('interrupted');
      await runLoad(run.server.url, loadPlan(run), config.warmupSec, connectionsOf(run, config)).catch(
        (error: Error) => (run.failure = `warm-up: ${error.message}`),
      );
    }
    console.log('done');
  }
  for (let round = 1; round <= config.rounds; round++) {
    const figures: string[] = [];
    for (const run of running.filter((r) => r.failure === undefined)) {
      if (aborted) throw new Error('interrupted');
      if (run.target.bounded) {
        const count = splitAcrossRounds(run.target.bounded.requests, config.rounds)[round - 1] ?? 0;
        try {
          const times: number[] = [];
          for (let i = 0; i < count; i++) {
            // Taken in turn, so the seeded users share the requests (per-e-mail limits); the probe had the first.
            const sent = run.boundedSamples.length + 1;
            const sample = await send(
              run.server.url,
              run.requests[sent % run.requests.length]!,
              run.target.check,
            );
            run.boundedSamples.push(sample);
            times.push(sample.ms);
          }
          if (count > 0) figures.push(`${run.target.id} ${count}× ~${Math.round(Math.max(...times))} ms max`);
        } catch (error) {
          run.failure = `round ${round}: ${(error as Error).message}`;
        }
        continue;
      }
      try {
        const result = await runLoad(
          run.server.url,
          loadPlan(run),
          slice,
          connectionsOf(run, config),
          run.samples,
        );
        const roundResult = roundFromLoad(result);
        run.rounds.push(roundResult);
        figures.push(`${run.target.id} ${formatRate(roundResult.requests / roundResult.durationSec)} req/s`);
      } catch (error) {
        run.failure = `round ${round}: ${(error as Error).message}`;
      }
    }
    console.log(`round ${round}/${config.rounds} (${slice.toFixed(1)} s each): ${figures.join(' · ')}`);
  }

  const results: TargetResult[] = [];
  for (const entry of prepared) {
    if (!isRunning(entry)) {
      results.push(entry);
      continue;
    }
    await entry.server.stop();
    if (entry.failure !== undefined) {
      results.push({ ...entry.base, outcome: 'failed', problems: [entry.failure] });
      continue;
    }
    if (entry.target.bounded) {
      const measurement = boundedMeasurement(entry.boundedSamples);
      const problems = [...loadProblems(measurement), ...boundedProblems(entry.boundedSamples)];
      results.push({ ...entry.base, outcome: problems.length ? 'errors' : 'ok', problems, measurement });
      continue;
    }
    const measurement = combineRounds(entry.rounds, entry.samples);
    const problems = loadProblems(measurement);
    results.push({ ...entry.base, outcome: problems.length ? 'errors' : 'ok', problems, measurement });
  }
  return results;
}

function gitCommit(): string | undefined {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], {
      cwd: ROOT_DIR,
      stdio: ['ignore', 'pipe', 'ignore'],
    })
      .toString()
      .trim();
  } catch {
    return undefined;
  }
}

function loadAverage(): number[] {
  return os.loadavg().map((value) => Math.round(value * 100) / 100);
}

function machineInfo() {
  const cpus = os.cpus();
  return {
    cpus: cpus.length,
    cpuModel: cpus[0]?.model.trim() ?? 'unknown',
    totalMemoryMb: Math.round(os.totalmem() / 1024 / 1024),
    platform: os.platform(),
    release: os.release(),
    arch: os.arch(),
    node: process.version,
    loadAverage: loadAverage(),
  };
}

async function writeResults(report: unknown, startedAt: Date): Promise<string> {
  const dir = join(ROOT_DIR, 'bench-results');
  await mkdir(dir, { recursive: true });
  // ISO time with ':' replaced, so the file name is valid on every filesystem.
  const file = join(dir, `${startedAt.toISOString().replace(/:/g, '-')}.json`);
  const text = `${JSON.stringify(report, null, 2)}\n`;
  await writeFile(file, text);
  await writeFile(join(dir, 'latest.json'), text);
  return file;
}

async function main(): Promise<number> {
  let config: BenchConfig | undefined;
  try {
    config = loadBenchConfig(process.argv.slice(2));
  } catch (error) {
    if (error instanceof UsageError || error instanceof ConfigError) {
      console.error(`${error.message}\n\n${USAGE}`);
      return 2;
    }
    throw error;
  }
  if (!config) {
    console.log(USAGE);
    return 0;
  }
  // `delivery` (the federation delivery benchmark) and `uploads` are no HTTP scenarios: they run in
  // a full run and when --only names them.
  const parts = selectParts(config.only);
  let scenarios: Scenario[];
  try {
    scenarios = parts.noScenarios ? [] : selectScenarios(SCENARIOS, parts.scenarios);
  } catch (error) {
    console.error(`${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const startedAt = new Date();
  const machine = machineInfo();
  const logger = createLogger({ level: 'warn', name: 'bench' });

  console.log(
    `Agora bench — ${machine.cpus} CPUs (${machine.cpuModel}), Node ${machine.node}, ` +
      `${config.connections} connections, ${config.durationSec} s per target in ${config.rounds} round(s) (+${config.warmupSec} s warm-up)`,
  );
  const busy = machine.loadAverage[0] ?? 0;
  if (busy > machine.cpus / 2) {
    console.log(
      `note: load average ${busy} on ${machine.cpus} CPUs — other processes compete, figures will be noisy`,
    );
  }

  const dataDir = await mkdtemp(join(os.tmpdir(), 'agora-bench-'));
  let pgServer: BenchPostgres | undefined;
  let cleaning: Promise<void> | undefined;
  cleanup = () =>
    (cleaning ??= (async () => {
      await stopAllServers();
      await pgServer?.close().catch((error: Error) => console.error(`cleanup: ${error.message}`));
      await rm(dataDir, { recursive: true, force: true });
    })());

  try {
    const postgres = await obtainPostgres(config, logger);
    pgServer = postgres;
    console.log(`PostgreSQL ${postgres.serverVersion} (${postgres.source})\n`);

    const targets = [
      ...BASELINES.map((baseline) => baselineTarget(baseline, postgres)),
      ...scenarios.map((scenario) => scenarioTarget(scenario, postgres, dataDir)),
    ];
    const results = withRatios(await measureAll(targets, config));

    console.log(`\n${formatResultsTable(results)}`);
    console.log(
      '(÷ columns: req/s divided by that baseline’s req/s in this run; errors = connection errors + non-2xx)',
    );
    const baselineName = (id: string) => BASELINES.find((b) => b.id === id)?.name ?? id;
    const targetLines: TargetLine[] = scenarios
      .filter((s) => s.targetRatio !== undefined || s.maxP99Ms !== undefined)
      .map((s) => targetLine(results, { ...s, targetRatio: s.targetRatio ?? 0 }));
    for (const result of results.filter((r) => r.mode === 'bounded')) console.log(formatBoundedLine(result));
    for (const line of targetLines) console.log(formatTargetLine(line, baselineName(line.baseline)));
    for (const result of results.filter((r) => r.outcome !== 'ok')) {
      console.log(`\n${result.name}: ${result.outcome}\n  ${result.problems.join('\n  ')}`);
    }

    let delivery: DeliveryResult | undefined;
    if (parts.delivery) {
      console.log('\nsigned delivery of statuses to 1,000 remote followers on 50 loopback instances:');
      delivery = await runDeliveryBench({
        statuses: config.quick ? 40 : 120,
        createDatabase: (label) => postgres.createDatabase(label),
        dataDir,
        serverEnv: childEnv,
        print: (line) => console.log(`  ${line}`),
        signal: interrupted.signal,
      });
      for (const line of formatDeliveryLines(delivery)) console.log(`  ${line}`);
    }

    let uploads: UploadBenchResult | undefined;
    if (parts.uploads) {
      console.log('\nuploads of a 1 MB JPEG through each service, GET /health probed meanwhile:');
      uploads = await runUploadBench({
        seconds: config.durationSec,
        createDatabase: (label) => postgres.createDatabase(label),
        dataDir,
        serverEnv: childEnv,
        print: (line) => console.log(`  ${line}`),
        signal: interrupted.signal,
      });
    }

    let fanout: FanOutResult | undefined;
    if (parts.fanout) {
      console.log('\nhome fan-out: posts of an author with 10,000 local followers, feed table polled:');
      fanout = await runFanOutBench({
        posts: config.quick ? 10 : 30,
        intervalMs: 250,
        createDatabase: (label) => postgres.createDatabase(label),
        dataDir,
        serverEnv: childEnv,
        print: (line) => console.log(`  ${line}`),
        signal: interrupted.signal,
      });
      for (const line of formatFanOutLines(fanout)) console.log(`  ${line}`);
      if (fanout.outcome !== 'ok') console.log(`  ! ${fanout.problems.join('; ')}`);
    }

    let groupDelivery: GroupDeliveryResult | undefined;
    if (parts.groupDelivery) {
      console.log('\ngroup delivery: posts to a group of 1,000 remote members on 50 loopback instances:');
      groupDelivery = await runGroupDeliveryBench({
        posts: config.quick ? 3 : 10,
        createDatabase: (label) => postgres.createDatabase(label),
        dataDir,
        serverEnv: childEnv,
        print: (line) => console.log(`  ${line}`),
        signal: interrupted.signal,
      });
      for (const line of formatGroupDeliveryLines(groupDelivery)) console.log(`  ${line}`);
      if (groupDelivery.outcome !== 'ok') console.log(`  ! ${groupDelivery.problems.join('; ')}`);
    }

    let streaming: StreamingResult | undefined;
    if (parts.streaming) {
      console.log('\nstreaming: 5,000 WebSocket clients on one process, posts fanned out to all of them:');
      streaming = await runStreamingBench({
        sockets: 5000,
        users: 500,
        posts: config.quick ? 30 : 100,
        intervalMs: 100,
        createDatabase: (label) => postgres.createDatabase(label),
        dataDir,
        serverEnv: childEnv,
        print: (line) => console.log(`  ${line}`),
        signal: interrupted.signal,
      });
      for (const line of formatStreamingLines(streaming)) console.log(`  ${line}`);
      if (streaming.outcome !== 'ok') console.log(`  ! ${streaming.problems.join('; ')}`);
    }

    const broken = [
      ...results.filter((r) => r.outcome === 'failed' || r.outcome === 'errors'),
      ...(uploads?.services ?? [])
        .filter((s) => s.outcome !== 'ok')
        .map((s) => ({ name: `uploads ${s.service}` })),
      ...(fanout && fanout.outcome !== 'ok' ? [{ name: 'fan-out' }] : []),
      ...(groupDelivery && groupDelivery.outcome !== 'ok' ? [{ name: 'group delivery' }] : []),
      ...(streaming && streaming.outcome !== 'ok' ? [{ name: 'streaming' }] : []),
      ...(delivery && delivery.outcome !== 'ok' ? [{ name: 'delivery' }] : []),
    ];
    const report = {
      version: 1,
      startedAt: startedAt.toISOString(),
      finishedAt: new Date().toISOString(),
      ok: broken.length === 0,
      commit: gitCommit(),
      // Load from other processes skews every figure; the 1-minute average is kept to judge a run.
      machine: { ...machine, loadAverageAfter: loadAverage() },
      config: {
        connections: config.connections,
        durationSec: config.durationSec,
        warmupSec: config.warmupSec,
        rounds: config.rounds,
        quick: config.quick,
        only: config.only,
        pipelining: 1,
        database: { source: postgres.source, serverVersion: postgres.serverVersion },
        serverEnv: { NODE_ENV: 'production', LOG_LEVEL: 'warn' },
      },
      results,
      targets: targetLines,
      ...(delivery ? { delivery } : {}),
      ...(uploads ? { uploads } : {}),
      ...(fanout ? { fanout } : {}),
      ...(groupDelivery ? { groupDelivery } : {}),
      ...(streaming ? { streaming } : {}),
    };
    const file = await writeResults(report, startedAt);
    console.log(`\nresults: ${relative(ROOT_DIR, file)}`);
    if (broken.length > 0) {
      console.error(
        `\n${broken.length} target(s) failed or had request errors: ${broken.map((r) => r.name).join(', ')}`,
      );
      return 1;
    }
    return 0;
  } finally {
    await cleanup();
  }
}

function onSignal(signal: NodeJS.Signals) {
  console.error(`\n${signal}: stopping servers and cleaning up…`);
  aborted = true;
  interrupted.abort();
  currentLoad?.stop();
  const done = cleanup ? cleanup() : Promise.resolve();
  done.finally(() => process.exit(130));
}
process.once('SIGINT', onSignal);
process.once('SIGTERM', onSignal);
process.once('SIGHUP', onSignal);
process.on('exit', killAllServersNow);
// A closed pipe (`pnpm bench | head`) must not kill the run before it cleans up.
for (const stream of [process.stdout, process.stderr]) stream.on('error', () => undefined);

main().then(
  (code) => process.exit(code),
  async (error: unknown) => {
    console.error(`bench failed: ${error instanceof Error ? error.message : String(error)}`);
    await cleanup?.();
    process.exit(1);
  },
);
