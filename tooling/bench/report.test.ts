import { expect } from 'chai';
import {
  boundedMeasurement,
  boundedProblems,
  combineRounds,
  formatBoundedLine,
  formatResultsTable,
  formatTargetLine,
  LatencySamples,
  loadProblems,
  percentile,
  ratio,
  renderTable,
  roundFromLoad,
  targetLine,
  withRatios,
  type LoadResult,
  type Measurement,
  type TargetResult,
} from './report.js';

function loadResult(overrides: Partial<LoadResult> = {}): LoadResult {
  return {
    requests: { total: 40_000 },
    latency: { mean: 2.4567, p50: 2, p90: 3, p99: 7, max: 31 },
    throughput: { total: 8_000_000 },
    duration: 10,
    errors: 0,
    timeouts: 0,
    non2xx: 0,
    statusCodeStats: { '200': { count: 40_000 } },
    ...overrides,
  };
}

const combine = (loads: LoadResult[], samples?: LatencySamples) =>
  combineRounds(loads.map(roundFromLoad), samples);

function measured(
  id: string,
  kind: 'baseline' | 'scenario',
  rps: number,
  outcome: TargetResult['outcome'] = 'ok',
): TargetResult {
  const measurement: Measurement = { ...combine([loadResult()]), requestsPerSec: rps };
  return {
    id,
    name: id,
    kind,
    request: { method: 'GET', path: '/' },
    outcome,
    problems: [],
    measurement,
    ratios: {},
  };
}

describe('bench report', () => {
  it('adds rounds up: req/s over the whole measured time, and each round on its own', () => {
    const m = combine([
      loadResult({ requests: { total: 40_000 }, duration: 10 }),
      loadResult({ requests: { total: 20_000 }, duration: 5, statusCodeStats: { '200': { count: 20_000 } } }),
    ]);
    expect(m.requestsPerSec).to.equal(4000);
    expect(m.roundRequestsPerSec).to.deep.equal([4000, 4000]);
    expect(m.totalRequests).to.equal(60_000);
    expect(m.durationSec).to.equal(15);
    expect(m.bytesPerSec).to.equal(1_066_667);
    expect(m.statusCodes).to.deep.equal({ '200': 60_000 });
    // No samples: autocannon's whole-ms figures of the busiest round.
    expect(m.latencyMs).to.deep.equal({ mean: 2.457, p50: 2, p90: 3, p99: 7, max: 31 });
  });

  it('computes nearest-rank percentiles', () => {
    const sorted = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
    expect(percentile(sorted, 50)).to.equal(5);
    expect(percentile(sorted, 99)).to.equal(10);
    expect(percentile(sorted, 0)).to.equal(1);
    expect(percentile([0.42], 99)).to.equal(0.42);
    expect(percentile([], 50)).to.equal(undefined);
  });

  it('reports sub-millisecond percentiles from recorded samples instead of the whole-ms histogram', () => {
    const samples = new LatencySamples();
    // More than the initial buffer, recorded out of order.
    for (let i = 100_000; i >= 1; i--) samples.record(i / 100_000);
    expect(samples.size).to.equal(100_000);
    const m = combine([loadResult()], samples);
    expect(m.latencyMs).to.deep.equal({ mean: 0.5, p50: 0.5, p90: 0.9, p99: 0.99, max: 1 });
  });

  it('flags connection errors, timeouts and non-2xx responses with their status codes', () => {
    expect(loadProblems(combine([loadResult(), loadResult()]))).to.deep.equal([]);
    const bad = combine([
      loadResult({ errors: 2, non2xx: 1, statusCodeStats: { '200': { count: 10 }, '503': { count: 1 } } }),
      loadResult({
        errors: 1,
        timeouts: 1,
        non2xx: 4,
        statusCodeStats: { '200': { count: 10 }, '503': { count: 3 }, '404': { count: 1 } },
      }),
    ]);
    expect(loadProblems(bad)).to.deep.equal([
      '3 connection errors',
      '1 timeouts',
      '5 non-2xx responses (1×404, 4×503)',
    ]);
    expect(loadProblems(combine([loadResult({ requests: { total: 0 } })]))).to.include(
      'no request completed',
    );
  });

  it('divides only by measured, positive rates', () => {
    expect(ratio(700, 1000)).to.equal(0.7);
    expect(ratio(700, 0)).to.equal(undefined);
    expect(ratio(undefined, 1000)).to.equal(undefined);
    expect(ratio(700, undefined)).to.equal(undefined);
  });

  it('computes every ratio against the baselines measured cleanly, and none against a baseline with errors', () => {
    const results = withRatios([
      measured('http', 'baseline', 16_000),
      measured('express', 'baseline', 4_000),
      measured('pg', 'baseline', 5_000, 'errors'),
      measured('events-config', 'scenario', 3_000),
    ]);
    const scenario = results[3];
    expect(scenario?.ratios).to.deep.equal({ http: 0.1875, express: 0.75 });
    expect(results[1]?.ratios.express).to.equal(1);
  });

  it('says PASS at or above the target ratio, BELOW under it, NOT MEASURED when the scenario did not run', () => {
    const spec = {
      id: 'events-config',
      name: 'events config',
      baseline: 'express' as const,
      targetRatio: 0.7,
    };
    const pass = targetLine(
      withRatios([measured('express', 'baseline', 4000), measured('events-config', 'scenario', 2800)]),
      spec,
    );
    expect(pass).to.include({ verdict: 'PASS', ratio: 0.7 });
    const below = targetLine(
      withRatios([measured('express', 'baseline', 4000), measured('events-config', 'scenario', 2000)]),
      spec,
    );
    expect(below.verdict).to.equal('BELOW');
    expect(formatTargetLine(below, 'express hello')).to.equal(
      'target: events config / express hello = 0.50 (target ≥ 0.70) BELOW',
    );
    const missing = targetLine(withRatios([measured('express', 'baseline', 4000)]), spec);
    expect(missing.verdict).to.equal('NOT MEASURED');
    expect(formatTargetLine(missing, 'express hello')).to.contain('= — (target');
  });

  it('a latency-only target (ratio 0) is judged by its p99 alone and says it has no ratio target', () => {
    const results = withRatios([
      measured('pg', 'baseline', 4000),
      measured('microblog-post-status', 'scenario', 40),
    ]);
    const spec = { id: 'microblog-post-status', name: 'post', baseline: 'pg' as const, targetRatio: 0 };
    // The measured p99 is 7 ms.
    expect(targetLine(results, { ...spec, maxP99Ms: 50 }).verdict).to.equal('PASS');
    const slow = targetLine(results, { ...spec, maxP99Ms: 5 });
    expect(slow.verdict).to.equal('BELOW');
    expect(formatTargetLine(slow, 'pg')).to.equal(
      'target: post / pg = 0.01 (no ratio target), p99 7.00 ms (target ≤ 5) BELOW',
    );
  });

  it('renders a table with a left-aligned first column and right-aligned numbers', () => {
    const text = renderTable(
      ['name', 'req/s'],
      [
        ['a', '1'],
        ['longer', '12,345'],
      ],
    );
    expect(text.split('\n')).to.deep.equal([
      'name     req/s',
      '------  ------',
      'a            1',
      'longer  12,345',
    ]);
  });

  it('marks targets with errors and shows dashes for those not measured', () => {
    const skipped: TargetResult = {
      id: 'microblog-instance',
      name: 'microblog instance v1',
      kind: 'scenario',
      request: { method: 'GET', path: '/api/v1/instance' },
      outcome: 'skipped',
      problems: ['not built'],
      ratios: {},
    };
    const table = formatResultsTable(
      withRatios([
        measured('http', 'baseline', 16_000),
        measured('express', 'baseline', 4_000, 'errors'),
        skipped,
      ]),
    );
    const lines = table.split('\n');
    expect(lines[0]).to.match(
      /^name\s+req\/s\s+p50 ms\s+p99 ms\s+errors\s+÷ http\s+÷ express\s+÷ apollo\s+÷ pg$/,
    );
    expect(lines[2]).to.match(/^http\s+16,000\s+2\.00\s+7\.00\s+0\s+1\.00\s+—\s+—\s+—$/);
    expect(lines[3]).to.match(/^express {2}! errors/);
    expect(lines[4]).to.match(/^microblog instance v1 {2}\(skipped\)(\s+—)+$/);
  });

  describe('bounded (sequential) measurements', () => {
    const samples = [
      { status: 200, ms: 400 },
      { status: 200, ms: 500 },
      { status: 200, ms: 300 },
      { status: 429, ms: 20, problem: 'status 429: {"error":"Too many requests"}' },
    ];

    it('rates requests over the summed response times and takes percentiles of the 2xx ones', () => {
      const m = boundedMeasurement(samples);
      expect(m.totalRequests).to.equal(4);
      expect(m.durationSec).to.equal(1.22);
      expect(m.requestsPerSec).to.equal(3.3);
      expect(m.latencyMs).to.deep.equal({ mean: 400, p50: 400, p90: 500, p99: 500, max: 500 });
      expect(m.non2xx).to.equal(1);
      expect(m.statusCodes).to.deep.equal({ '200': 3, '429': 1 });
      expect(loadProblems(m)).to.deep.equal(['1 non-2xx responses (1×429)']);
      expect(boundedProblems([...samples, samples[3]!])).to.deep.equal([
        '2× status 429: {"error":"Too many requests"}',
      ]);
      expect(loadProblems(boundedMeasurement([]))).to.deep.equal(['no request completed']);
    });

    it('is never divided by a baseline, and is marked and explained in the output', () => {
      const bounded: TargetResult = {
        ...measured('events-login', 'scenario', 2.5),
        mode: 'bounded',
        note: 'not a saturated rate',
        measurement: boundedMeasurement(samples.slice(0, 3)),
      };
      const [, result] = withRatios([measured('pg', 'baseline', 5_000), bounded]);
      expect(result?.ratios).to.deep.equal({});
      expect(formatResultsTable([result!])).to.match(/events-login †\s+3\s+400/);
      expect(formatBoundedLine(result!)).to.equal(
        '† events-login: 3 sequential requests, p50 400.0 ms, p99 500.0 ms, 2.5 req/s for one client in sequence\n' +
          '  not a saturated rate',
      );
    });
  });
});
