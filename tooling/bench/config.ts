import { parseArgs } from 'node:util';
import { z } from 'zod';
import { envInt, envUrl, loadConfig, processEnv, type Env } from '@agora/core';

/** The bench's own environment: where PostgreSQL is, and defaults for the run length. */
export const benchEnvSchema = z.object({
  BENCH_DATABASE_URL: envUrl().optional(),
  TEST_DATABASE_URL: envUrl().optional(),
  BENCH_CONNECTIONS: envInt(10, { min: 1, max: 1000 }),
  BENCH_DURATION: z.coerce.number().int().min(1).max(600).optional(),
  BENCH_WARMUP: z.coerce.number().int().min(0).max(600).optional(),
  BENCH_ROUNDS: z.coerce.number().int().min(1).max(100).optional(),
});

export type DatabaseSource = 'BENCH_DATABASE_URL' | 'TEST_DATABASE_URL' | 'embedded';

export interface BenchConfig {
  connections: number;
  durationSec: number;
  warmupSec: number;
  /** The measured time of each target is split into this many slices, taken in turns across targets. */
  rounds: number;
  quick: boolean;
  /** Names (or ids) to run; empty = everything. Baselines are always measured: ratios need them. */
  only: string[];
  database: { source: DatabaseSource; url: string | undefined };
}

export const DEFAULT_DURATION_SEC = 10;
export const QUICK_DURATION_SEC = 3;
export const DEFAULT_WARMUP_SEC = 2;
export const QUICK_WARMUP_SEC = 1;
export const DEFAULT_ROUNDS = 2;
export const QUICK_ROUNDS = 1;

export const USAGE = `Usage: pnpm bench [--quick] [--duration <s>] [--rounds <n>] [--warmup <s>] [--connections <n>] [--only <name,…>]

  --quick            3 s per target in 1 round, 1 s warm-up (default 10 s in 2 rounds, 2 s warm-up)
  --duration <s>     measured seconds per target
  --rounds <n>       split each target's time into n slices, taken in turns across targets
  --warmup <s>       warm-up seconds per target (not measured)
  --connections <n>  concurrent connections (default 10)
  --only <names>     comma-separated scenario names or ids to run (baselines always run);
                     "delivery" = statuses delivered to 1,000 remote followers on 50 instances
                     "uploads" = 1 MB JPEG uploads per service with GET /health probed (part of a full run)
                     "fanout" = posts of an author with 10,000 local followers, timed until every home feed holds them
                     "group-delivery" = posts of a group with 1,000 remote members on 50 instances: signed POSTs per shared inbox
                     "streaming" = 5,000 WebSocket clients on one server, a steady stream of posts fanned out to them

Environment: BENCH_DATABASE_URL (else TEST_DATABASE_URL, else an embedded PostgreSQL),
BENCH_CONNECTIONS, BENCH_DURATION, BENCH_ROUNDS, BENCH_WARMUP.`;

/** What --only selects: HTTP scenario names, and the benchmarks that are not HTTP scenarios. */
export interface SelectedParts {
  scenarios: string[];
  /** No scenario selected, but --only was given: only the named benchmarks run. */
  noScenarios: boolean;
  delivery: boolean;
  uploads: boolean;
  fanout: boolean;
  groupDelivery: boolean;
  streaming: boolean;
}

const PARTS = ['delivery', 'uploads', 'fanout', 'group-delivery', 'streaming'];

/**
 * A full run (empty list) runs everything; otherwise "delivery", "uploads", "fanout",
 * "group-delivery" and "streaming" name those benchmarks.
 */
export function selectParts(only: string[]): SelectedParts {
  const scenarios = only.filter((name) => !PARTS.includes(name));
  return {
    scenarios,
    noScenarios: only.length > 0 && scenarios.length === 0,
    delivery: only.length === 0 || only.includes('delivery'),
    uploads: only.length === 0 || only.includes('uploads'),
    fanout: only.length === 0 || only.includes('fanout'),
    groupDelivery: only.length === 0 || only.includes('group-delivery'),
    streaming: only.length === 0 || only.includes('streaming'),
  };
}

export class UsageError extends Error {
  override name = 'UsageError';
}

function positiveInt(flag: string, value: string | undefined, min: number): number | undefined {
  if (value === undefined) return undefined;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < min) {
    throw new UsageError(`${flag} expects an integer ≥ ${min}, got "${value}"`);
  }
  return parsed;
}

/** Command-line flags over the environment over the defaults. Returns undefined for --help. */
export function loadBenchConfig(argv: string[], env: Env = processEnv()): BenchConfig | undefined {
  // `pnpm <script> -- --quick` may forward the separator itself.
  const args = argv[0] === '--' ? argv.slice(1) : argv;
  let values;
  try {
    ({ values } = parseArgs({
      args,
      strict: true,
      allowPositionals: false,
      options: {
        quick: { type: 'boolean', default: false },
        duration: { type: 'string' },
        warmup: { type: 'string' },
        rounds: { type: 'string' },
        connections: { type: 'string' },
        only: { type: 'string' },
        help: { type: 'boolean', short: 'h', default: false },
      },
    }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (values.help) return undefined;

  const fromEnv = loadConfig(benchEnvSchema, env);
  const quick = values.quick ?? false;
  const database: BenchConfig['database'] = fromEnv.BENCH_DATABASE_URL
    ? { source: 'BENCH_DATABASE_URL', url: fromEnv.BENCH_DATABASE_URL }
    : fromEnv.TEST_DATABASE_URL
      ? { source: 'TEST_DATABASE_URL', url: fromEnv.TEST_DATABASE_URL }
      : { source: 'embedded', url: undefined };
  return {
    connections: positiveInt('--connections', values.connections, 1) ?? fromEnv.BENCH_CONNECTIONS,
    durationSec:
      positiveInt('--duration', values.duration, 1) ??
      (quick ? QUICK_DURATION_SEC : (fromEnv.BENCH_DURATION ?? DEFAULT_DURATION_SEC)),
    warmupSec:
      positiveInt('--warmup', values.warmup, 0) ??
      (quick ? QUICK_WARMUP_SEC : (fromEnv.BENCH_WARMUP ?? DEFAULT_WARMUP_SEC)),
    rounds:
      positiveInt('--rounds', values.rounds, 1) ??
      (quick ? QUICK_ROUNDS : (fromEnv.BENCH_ROUNDS ?? DEFAULT_ROUNDS)),
    quick,
    only: (values.only ?? '')
      .split(',')
      .map((name) => name.trim())
      .filter(Boolean),
    database,
  };
}
