import { expect } from 'chai';
import pg from 'pg';
import { createLogger } from '../logger/logger.js';
import { createScratchDatabase } from '../testing/scratch-database.js';
import { createPgBossQueue, type JobQueue } from './index.js';

// The tables of a pg-boss 10 install (schema version 24) that the upgrade reads, as 10.x created them.
const PG_BOSS_10_SCHEMA = `
  CREATE SCHEMA pgboss;
  CREATE TABLE pgboss.version (version int primary key, maintained_on timestamptz, cron_on timestamptz, monitored_on timestamptz);
  INSERT INTO pgboss.version (version) VALUES (24);
  CREATE TYPE pgboss.job_state AS ENUM ('created', 'retry', 'active', 'completed', 'cancelled', 'failed');
  CREATE TABLE pgboss.job (
    id uuid not null default gen_random_uuid(), name text not null, priority integer not null default(0),
    data jsonb, state pgboss.job_state not null default('created'), retry_limit integer not null default(2),
    retry_count integer not null default(0), retry_delay integer not null default(0),
    retry_backoff boolean not null default false, start_after timestamptz not null default now(),
    started_on timestamptz, singleton_key text, singleton_on timestamp without time zone,
    expire_in interval not null default interval '15 minutes', created_on timestamptz not null default now(),
    completed_on timestamptz, keep_until timestamptz NOT NULL default now() + interval '14 days',
    output jsonb, dead_letter text, policy text
  ) PARTITION BY LIST (name);
  CREATE TABLE pgboss.job_deliver PARTITION OF pgboss.job FOR VALUES IN ('deliver');
  CREATE TABLE pgboss.archive (LIKE pgboss.job);
  ALTER TABLE pgboss.archive ADD archived_on timestamptz NOT NULL DEFAULT now();
`;

describe('job queue: upgrade from a pg-boss 10 schema', () => {
  let database: Awaited<ReturnType<typeof createScratchDatabase>>;
  let queue: JobQueue | undefined;

  before(async () => {
    database = await createScratchDatabase();
  });

  after(async () => {
    await queue?.stop();
    await database?.drop();
  });

  it('carries waiting, running and dead jobs over, drops finished ones and the old schema', async () => {
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      await client.query(PG_BOSS_10_SCHEMA);
      await client.query(
        `INSERT INTO pgboss.job (name, data, state, retry_limit, completed_on, output) VALUES
           ('deliver', '{"n":1}', 'created', 5, null, null),
           ('deliver', '{"n":2}', 'active', 5, null, null),
           ('deliver', '{"n":3}', 'completed', 5, now(), null),
           ('deliver', '{"n":4}', 'failed', 0, now(), '{"message":"gone"}')`,
      );
      // pg-boss 10 archived a job by moving its row, as here.
      await client.query(
        `WITH archived AS (
           INSERT INTO pgboss.job (name, data, state, retry_limit, completed_on, output)
           VALUES ('deliver', '{"n":5}', 'failed', 0, now() - interval '1 day', '{"message":"older"}') RETURNING *
         ) INSERT INTO pgboss.archive SELECT *, now() FROM archived`,
      );
      await client.query(`DELETE FROM pgboss.job WHERE data = '{"n":5}'`);
    } finally {
      await client.end();
    }

    queue = createPgBossQueue({
      connectionString: database.url,
      logger: createLogger({ level: 'silent', name: 'queue-upgrade-test' }),
      role: 'all',
      pollingIntervalSeconds: 0.5,
      stopTimeoutMs: 1000,
    });
    const ran: number[] = [];
    await queue.work<{ n: number }>('deliver', async (job) => {
      ran.push(job.data.n);
    });
    await queue.start();
    await queue.drain(['deliver']);

    expect(ran.sort()).to.deep.equal([1, 2]);
    const dead = await queue.deadLetters('deliver');
    expect(dead.map((letter) => [letter.data, letter.error])).to.deep.equal([
      [{ n: 4 }, 'gone'],
      [{ n: 5 }, 'older'],
    ]);

    const check = new pg.Client({ connectionString: database.url });
    await check.connect();
    try {
      const schemas = await check.query(`SELECT nspname FROM pg_namespace WHERE nspname LIKE 'pgboss%'`);
      expect(schemas.rows.map((row: { nspname: string }) => row.nspname)).to.deep.equal(['pgboss']);
    } finally {
      await check.end();
    }
  });
});
