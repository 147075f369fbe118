import type { BaselineId, BenchRequest } from './scenarios.js';
import { BASELINE_IDS } from './scenarios.js';

/** The subset of an autocannon result the report uses (autocannon's own Result satisfies it). */
export interface LoadResult {
  requests: { total: number };
  latency: { mean: number; p50: number; p90: number; p99: number; max: number };
  throughput: { total: number };
  duration: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  statusCodeStats?: Record<string, { count?: number }>;
}

export interface LatencySummary {
  mean: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

/** One slice of load against one target. */
export interface RoundResult {
  requests: number;
  durationSec: number;
  bytes: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  statusCodes: Record<string, number>;
  /** autocannon's whole-millisecond figures, used only when no samples were recorded. */
  latencyMs: LatencySummary;
}

export interface Measurement {
  /** Completed requests divided by the measured time, over all rounds. */
  requestsPerSec: number;
  /** The same figure per round: how stable the run was. */
  roundRequestsPerSec: number[];
  latencyMs: LatencySummary;
  bytesPerSec: number;
  totalRequests: number;
  durationSec: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  statusCodes: Record<string, number>;
}

export type Outcome = 'ok' | 'errors' | 'failed' | 'skipped';

export interface TargetResult {
  id: string;
  name: string;
  kind: 'baseline' | 'scenario';
  service?: string;
  /** 'bounded': a few sequential requests (rate-limited endpoint), not comparable to the baselines. */
  mode?: 'load' | 'bounded';
  /** What the figures mean, when that is not the usual saturated rate. */
  note?: string;
  request: BenchRequest;
  outcome: Outcome;
  /** Why the target failed, was skipped, or which requests errored. */
  problems: string[];
  measurement?: Measurement;
  /** requests/s of this target divided by each baseline's (absent when either was not measured). */
  ratios: Partial<Record<BaselineId, number>>;
}

export interface TargetLine {
  scenario: string;
  baseline: BaselineId;
  ratio: number | undefined;
  min: number;
  /** The run's p99 latency and its bound, when the scenario sets one. */
  p99Ms?: number | undefined;
  maxP99Ms?: number;
  verdict: 'PASS' | 'BELOW' | 'NOT MEASURED';
}

const round = (value: number, digits: number) => {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
};

/** Nearest-rank percentile (p in 0..100) of values sorted ascending; undefined when empty. */
export function percentile(sorted: ArrayLike<number>, p: number): number | undefined {
  if (sorted.length === 0) return undefined;
  const rank = Math.ceil((Math.min(Math.max(p, 0), 100) / 100) * sorted.length);
  return sorted[Math.max(rank, 1) - 1];
}

/**
 * Response times in ms at full resolution: autocannon's own histogram keeps whole milliseconds,
 * which reads 0 or 1 for every fast server.
 */
export class LatencySamples {
  private values = new Float64Array(1 << 16);
  private count = 0;

  record(ms: number): void {
    if (this.count === this.values.length) {
      const grown = new Float64Array(this.values.length * 2);
      grown.set(this.values);
      this.values = grown;
    }
    this.values[this.count++] = ms;
  }

  get size(): number {
    return this.count;
  }

  /** Sorted copy of the samples, ascending. */
  sorted(): Float64Array {
    return this.values.slice(0, this.count).sort();
  }
}

const ms = (value: number | undefined) => (value === undefined ? 0 : round(value, 3));

export function roundFromLoad(result: LoadResult): RoundResult {
  const statusCodes: Record<string, number> = {};
  for (const [code, stat] of Object.entries(result.statusCodeStats ?? {})) {
    statusCodes[code] = stat.count ?? 0;
  }
  const { mean, p50, p90, p99, max } = result.latency;
  return {
    requests: result.requests.total,
    durationSec: result.duration,
    bytes: result.throughput.total,
    errors: result.errors,
    timeouts: result.timeouts,
    non2xx: result.non2xx,
    statusCodes,
    latencyMs: { mean, p50, p90, p99, max },
  };
}

function latencyFromSamples(samples: LatencySamples): LatencySummary {
  const sorted = samples.sorted();
  let sum = 0;
  for (const value of sorted) sum += value;
  return {
    mean: ms(sum / sorted.length),
    p50: ms(percentile(sorted, 50)),
    p90: ms(percentile(sorted, 90)),
    p99: ms(percentile(sorted, 99)),
    max: ms(sorted[sorted.length - 1]),
  };
}

/** Adds the rounds of one target up; latency percentiles come from all rounds' samples. */
export function combineRounds(rounds: RoundResult[], samples?: LatencySamples): Measurement {
  const sum = (pick: (r: RoundResult) => number) => rounds.reduce((total, r) => total + pick(r), 0);
  const durationSec = sum((r) => r.durationSec);
  const totalRequests = sum((r) => r.requests);
  const statusCodes: Record<string, number> = {};
  for (const r of rounds) {
    for (const [code, count] of Object.entries(r.statusCodes))
      statusCodes[code] = (statusCodes[code] ?? 0) + count;
  }
  // Without samples, the busiest round's histogram stands for the run.
  const busiest = [...rounds].sort((a, b) => b.requests - a.requests)[0];
  const latencyMs =
    samples && samples.size > 0
      ? latencyFromSamples(samples)
      : busiest
        ? { ...busiest.latencyMs, mean: ms(busiest.latencyMs.mean) }
        : { mean: 0, p50: 0, p90: 0, p99: 0, max: 0 };
  return {
    requestsPerSec: durationSec > 0 ? round(totalRequests / durationSec, 1) : 0,
    roundRequestsPerSec: rounds.map((r) => (r.durationSec > 0 ? round(r.requests / r.durationSec, 1) : 0)),
    latencyMs,
    bytesPerSec: durationSec > 0 ? Math.round(sum((r) => r.bytes) / durationSec) : 0,
    totalRequests,
    durationSec: round(durationSec, 2),
    errors: sum((r) => r.errors),
    timeouts: sum((r) => r.timeouts),
    non2xx: sum((r) => r.non2xx),
    statusCodes,
  };
}

/** Every reason a measured run does not count: connection errors, timeouts, non-2xx, no traffic. */
export function loadProblems(m: Measurement): string[] {
  const problems: string[] = [];
  if (m.errors > 0) problems.push(`${m.errors} connection errors`);
  if (m.timeouts > 0) problems.push(`${m.timeouts} timeouts`);
  if (m.non2xx > 0) {
    const codes = Object.entries(m.statusCodes)
      .filter(([code]) => !code.startsWith('2'))
      .map(([code, count]) => `${count}×${code}`);
    problems.push(`${m.non2xx} non-2xx responses${codes.length ? ` (${codes.join(', ')})` : ''}`);
  }
  if (m.totalRequests === 0) problems.push('no request completed');
  return problems;
}

/** One request of a bounded (sequential) measurement. */
export interface BoundedSample {
  status: number;
  ms: number;
  /** The response check's complaint, if any. */
  problem?: string;
}

/**
 * Sequential requests as a Measurement: the rate is requests over the summed response times, i.e.
 * what one client waiting for each answer gets; latency percentiles over those few requests.
 */
export function boundedMeasurement(samples: readonly BoundedSample[]): Measurement {
  const statusCodes: Record<string, number> = {};
  for (const s of samples) statusCodes[String(s.status)] = (statusCodes[String(s.status)] ?? 0) + 1;
  const times = new LatencySamples();
  for (const s of samples) if (s.status >= 200 && s.status < 300) times.record(s.ms);
  const totalMs = samples.reduce((sum, s) => sum + s.ms, 0);
  const durationSec = totalMs / 1000;
  return {
    requestsPerSec: durationSec > 0 ? round(samples.length / durationSec, 1) : 0,
    roundRequestsPerSec: [],
    latencyMs: times.size > 0 ? latencyFromSamples(times) : { mean: 0, p50: 0, p90: 0, p99: 0, max: 0 },
    bytesPerSec: 0,
    totalRequests: samples.length,
    durationSec: round(durationSec, 3),
    errors: 0,
    timeouts: 0,
    non2xx: samples.filter((s) => s.status < 200 || s.status > 299).length,
    statusCodes,
  };
}

/** The distinct response-check complaints of a bounded run, with how often each occurred. */
export function boundedProblems(samples: readonly BoundedSample[]): string[] {
  const counts = new Map<string, number>();
  for (const s of samples) if (s.problem) counts.set(s.problem, (counts.get(s.problem) ?? 0) + 1);
  return [...counts].map(([problem, count]) => `${count}× ${problem}`);
}

/** a / b, or undefined when either side is missing or b is zero. */
export function ratio(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined || b === undefined || !Number.isFinite(a) || !Number.isFinite(b) || b <= 0) {
    return undefined;
  }
  return a / b;
}

function rateOf(result: TargetResult | undefined): number | undefined {
  return result && result.outcome === 'ok' ? result.measurement?.requestsPerSec : undefined;
}

/** Fills `ratios` of every measured target against every baseline measured without problems. */
export function withRatios(results: TargetResult[]): TargetResult[] {
  const baselineRates = new Map<BaselineId, number | undefined>();
  for (const id of BASELINE_IDS) {
    baselineRates.set(id, rateOf(results.find((r) => r.kind === 'baseline' && r.id === id)));
  }
  return results.map((result) => {
    const ratios: Partial<Record<BaselineId, number>> = {};
    // A handful of sequential requests is no throughput: dividing it by a ceiling would mislead.
    if (result.mode === 'bounded') return { ...result, ratios };
    const own = result.measurement?.requestsPerSec;
    for (const id of BASELINE_IDS) {
      const value = ratio(own, baselineRates.get(id));
      if (value !== undefined) ratios[id] = round(value, 4);
    }
    return { ...result, ratios };
  });
}

export function targetLine(
  results: TargetResult[],
  scenario: { id: string; name: string; baseline: BaselineId; targetRatio: number; maxP99Ms?: number },
): TargetLine {
  const measured = results.find((r) => r.kind === 'scenario' && r.id === scenario.id);
  const value = measured?.outcome === 'ok' ? measured.ratios[scenario.baseline] : undefined;
  const p99 = measured?.outcome === 'ok' ? measured.measurement?.latencyMs.p99 : undefined;
  const latencyHolds = scenario.maxP99Ms === undefined || (p99 !== undefined && p99 <= scenario.maxP99Ms);
  return {
    scenario: scenario.name,
    baseline: scenario.baseline,
    ratio: value,
    min: scenario.targetRatio,
    ...(scenario.maxP99Ms !== undefined ? { p99Ms: p99, maxP99Ms: scenario.maxP99Ms } : {}),
    verdict:
      value === undefined ? 'NOT MEASURED' : value >= scenario.targetRatio && latencyHolds ? 'PASS' : 'BELOW',
  };
}

export function formatTargetLine(line: TargetLine, baselineName: string): string {
  const value = line.ratio === undefined ? '—' : line.ratio.toFixed(2);
  const latency =
    line.maxP99Ms === undefined
      ? ''
      : `, p99 ${line.p99Ms === undefined ? '—' : formatMs(line.p99Ms)} ms (target ≤ ${line.maxP99Ms})`;
  // A latency-only target (ratio bound 0) still shows the ratio, for the record.
  const bound = line.min > 0 ? `target ≥ ${line.min.toFixed(2)}` : 'no ratio target';
  return `target: ${line.scenario} / ${baselineName} = ${value} (${bound})${latency} ${line.verdict}`;
}

/** The line under the table for a bounded scenario: its per-request cost and why it is no load test. */
export function formatBoundedLine(result: TargetResult): string {
  const m = result.measurement;
  const figures = m
    ? `${m.totalRequests} sequential requests, p50 ${formatMs(m.latencyMs.p50)} ms, p99 ${formatMs(m.latencyMs.p99)} ms, ` +
      `${m.requestsPerSec.toFixed(1)} req/s for one client in sequence`
    : 'not measured';
  return `† ${result.name}: ${figures}\n  ${result.note ?? ''}`.trimEnd();
}

export function formatRate(value: number | undefined): string {
  if (value === undefined) return '—';
  return Math.round(value).toLocaleString('en-US');
}

export function formatMs(value: number | undefined): string {
  if (value === undefined) return '—';
  return value < 10 ? value.toFixed(2) : value.toFixed(1);
}

export function formatRatio(value: number | undefined): string {
  return value === undefined ? '—' : value.toFixed(2);
}

/** Left-aligns the first column, right-aligns the rest, with a rule under the header. */
export function renderTable(header: string[], rows: string[][]): string {
  const widths = header.map((cell, i) => Math.max(cell.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (i === 0 ? cell.padEnd(widths[i] ?? 0) : cell.padStart(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

const OUTCOME_MARK: Record<Outcome, string> = {
  ok: '',
  errors: '  ! errors',
  failed: '  ! failed',
  skipped: '  (skipped)',
};

/** One row per target; the last columns are its req/s divided by each baseline's. */
export function formatResultsTable(results: TargetResult[]): string {
  const header = ['name', 'req/s', 'p50 ms', 'p99 ms', 'errors', ...BASELINE_IDS.map((id) => `÷ ${id}`)];
  const rows = results.map((r) => {
    const m = r.measurement;
    const bad = m ? m.errors + m.non2xx : undefined;
    return [
      `${r.name}${r.mode === 'bounded' ? ' †' : ''}${OUTCOME_MARK[r.outcome]}`,
      formatRate(m?.requestsPerSec),
      formatMs(m?.latencyMs.p50),
      formatMs(m?.latencyMs.p99),
      bad === undefined ? '—' : String(bad),
      ...BASELINE_IDS.map((id) => formatRatio(r.ratios[id])),
    ];
  });
  return renderTable(header, rows);
}
