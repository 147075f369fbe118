import { expect } from 'chai';
import { ConfigError } from '@agora/core';
import { loadBenchConfig, selectParts, UsageError } from './config.js';
import { benchDatabaseName, databaseUrl } from './database.js';

describe('bench configuration', () => {
  it('defaults to 10 connections, 10 s and an embedded PostgreSQL', () => {
    expect(loadBenchConfig([], {})).to.deep.equal({
      connections: 10,
      durationSec: 10,
      warmupSec: 2,
      rounds: 2,
      quick: false,
      only: [],
      database: { source: 'embedded', url: undefined },
    });
  });

  it('shortens the run with --quick, and flags win over the environment', () => {
    expect(loadBenchConfig(['--quick'], { BENCH_DURATION: '20', BENCH_ROUNDS: '4' })).to.include({
      durationSec: 3,
      warmupSec: 1,
      rounds: 1,
      quick: true,
    });
    expect(loadBenchConfig(['--rounds', '3'], { BENCH_ROUNDS: '4' })?.rounds).to.equal(3);
    expect(loadBenchConfig([], { BENCH_DURATION: '20' })?.durationSec).to.equal(20);
    expect(
      loadBenchConfig(['--', '--duration', '5', '--connections', '4'], { BENCH_CONNECTIONS: '50' }),
    ).to.include({
      durationSec: 5,
      connections: 4,
    });
    expect(loadBenchConfig(['--only', 'events-config, microblog-instance'], {})?.only).to.deep.equal([
      'events-config',
      'microblog-instance',
    ]);
    expect(loadBenchConfig(['--help'], {})).to.equal(undefined);
  });

  it('prefers BENCH_DATABASE_URL over TEST_DATABASE_URL', () => {
    const both = { BENCH_DATABASE_URL: 'postgres://a@h:1/x', TEST_DATABASE_URL: 'postgres://b@h:2/y' };
    expect(loadBenchConfig([], both)?.database).to.deep.equal({
      source: 'BENCH_DATABASE_URL',
      url: both.BENCH_DATABASE_URL,
    });
    expect(loadBenchConfig([], { TEST_DATABASE_URL: both.TEST_DATABASE_URL })?.database.source).to.equal(
      'TEST_DATABASE_URL',
    );
  });

  it('rejects bad flags and bad variables with a clear message', () => {
    expect(() => loadBenchConfig(['--duration', 'ten'], {})).to.throw(
      UsageError,
      '--duration expects an integer ≥ 1, got "ten"',
    );
    expect(() => loadBenchConfig(['--fast'], {})).to.throw(UsageError, /--fast/);
    expect(() => loadBenchConfig([], { BENCH_DATABASE_URL: 'not a url', BENCH_CONNECTIONS: '0' }))
      .to.throw(ConfigError)
      .with.property('issues')
      .with.length(2);
  });

  it('names bench databases as valid, unique-per-run identifiers and points URLs at them', () => {
    const name = benchDatabaseName('Baseline pg', new Date('2025-03-04T05:06:07Z'), 42);
    expect(name).to.equal('agora_bench_20250304050607_42_baseline_pg');
    expect(benchDatabaseName('x'.repeat(100)).length).to.be.at.most(63);
    expect(databaseUrl('postgres://u:p@127.0.0.1:5432/postgres?sslmode=disable', name)).to.equal(
      `postgres://u:p@127.0.0.1:5432/${name}?sslmode=disable`,
    );
  });

  it('runs the delivery, upload, fan-out and streaming benchmarks in a full run, or when --only names them', () => {
    expect(selectParts([])).to.deep.equal({
      scenarios: [],
      noScenarios: false,
      delivery: true,
      uploads: true,
      fanout: true,
      groupDelivery: true,
      streaming: true,
    });
    expect(selectParts(['uploads'])).to.deep.equal({
      scenarios: [],
      noScenarios: true,
      delivery: false,
      uploads: true,
      fanout: false,
      groupDelivery: false,
      streaming: false,
    });
    expect(selectParts(['delivery', 'events-config'])).to.deep.equal({
      scenarios: ['events-config'],
      noScenarios: false,
      delivery: true,
      uploads: false,
      fanout: false,
      groupDelivery: false,
      streaming: false,
    });
    expect(selectParts(['fanout', 'microblog-home-timeline'])).to.deep.equal({
      scenarios: ['microblog-home-timeline'],
      noScenarios: false,
      delivery: false,
      uploads: false,
      fanout: true,
      groupDelivery: false,
      streaming: false,
    });
    expect(selectParts(['group-delivery'])).to.deep.include({
      noScenarios: true,
      groupDelivery: true,
      fanout: false,
      streaming: false,
    });
    expect(selectParts(['streaming'])).to.include({ noScenarios: true, streaming: true, fanout: false });
  });
});
