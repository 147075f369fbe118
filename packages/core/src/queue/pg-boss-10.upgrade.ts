import type pg from 'pg';
import type { Logger } from '../logger/logger.js';

// pg-boss 10 left its schema at version 24; pg-boss 11+ migrates only from 25 on and tells users of
// 10 to move their jobs themselves. This does it: the old schema is set aside under this suffix,
// pg-boss installs anew, then the jobs still to run and the dead letters are copied across.
const SET_ASIDE_SUFFIX = '_v10';
const LAST_PG_BOSS_10_VERSION = 24;
const INTERNAL_QUEUE_PREFIX = '__pgboss__';
// Both processes of a split deployment may start at once: one of them upgrades.
const LOCK_KEY = 'agora-queue:pg-boss-10-upgrade';

const isPgBoss10 = (version: number | null) => version !== null && version <= LAST_PG_BOSS_10_VERSION;

export interface PgBoss10Upgrade {
  /** Copies the set-aside jobs into the new schema (queues created first), then drops the old schema. */
  moveJobs(ensureQueue: (name: string) => Promise<void>): Promise<void>;
}

async function schemaVersion(db: pg.Pool | pg.PoolClient, schema: string): Promise<number | null> {
  const { rows } = await db.query<{ present: boolean }>('SELECT to_regclass($1) IS NOT NULL AS present', [
    `${schema}.version`,
  ]);
  if (!rows[0]?.present) return null;
  const version = await db.query<{ version: number }>(`SELECT version FROM ${schema}.version`);
  return version.rows[0]?.version ?? null;
}

/**
 * Before pg-boss starts: sets a pg-boss 10 schema aside (renamed) so that pg-boss installs a fresh
 * one; returns how to carry its jobs over afterwards, or null when there is nothing to upgrade.
 */
export async function upgradePgBoss10Schema(
  pool: pg.Pool,
  schema: string,
  logger: Logger,
): Promise<PgBoss10Upgrade | null> {
  const setAside = `${schema}${SET_ASIDE_SUFFIX}`;
  // Every start asks; only a database still on pg-boss 10 (or midway through the upgrade) takes the lock.
  if (!isPgBoss10(await schemaVersion(pool, schema)) && (await schemaVersion(pool, setAside)) === null)
    return null;
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [LOCK_KEY]);
    const version = await schemaVersion(client, schema);
    if (isPgBoss10(version)) {
      await client.query(`ALTER SCHEMA ${schema} RENAME TO ${setAside}`);
      logger.info({ schema, version }, 'job queue: pg-boss 10 schema set aside for the upgrade');
    }
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
  // Also picks up an upgrade that stopped between the rename and the copy.
  if ((await schemaVersion(pool, setAside)) === null) return null;
  return { moveJobs: (ensureQueue) => moveJobs(pool, schema, setAside, ensureQueue, logger) };
}

async function moveJobs(
  pool: pg.Pool,
  schema: string,
  setAside: string,
  ensureQueue: (name: string) => Promise<void>,
  logger: Logger,
): Promise<void> {
  // Unfinished jobs (a job that was running starts again as a retry) and dead letters, archived or not.
  const kept = `
    SELECT id, name, priority, data, state::text AS state, retry_limit, retry_count, retry_delay,
           retry_backoff, start_after, singleton_key, singleton_on, expire_in, created_on, completed_on, output
      FROM ${setAside}.job WHERE state::text IN ('created', 'retry', 'active', 'failed')
    UNION ALL
    SELECT id, name, priority, data, state::text, retry_limit, retry_count, retry_delay,
           retry_backoff, start_after, singleton_key, singleton_on, expire_in, created_on, completed_on, output
      FROM ${setAside}.archive WHERE state::text = 'failed'`;
  const names = await pool.query<{ name: string }>(
    `SELECT DISTINCT name FROM (${kept}) AS kept WHERE NOT starts_with(name, $1) ORDER BY name`,
    [INTERNAL_QUEUE_PREFIX],
  );
  for (const { name } of names.rows) await ensureQueue(name);
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [LOCK_KEY]);
    const stillThere = await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [setAside]);
    if (stillThere.rowCount) {
      const moved = await client.query(
        `INSERT INTO ${schema}.job (id, name, priority, data, state, retry_limit, retry_count, retry_delay,
                                   retry_backoff, start_after, singleton_key, singleton_on, expire_seconds,
                                   created_on, completed_on, output, policy)
         SELECT kept.id, kept.name, kept.priority, kept.data,
                (CASE kept.state WHEN 'active' THEN 'retry' ELSE kept.state END)::${schema}.job_state,
                kept.retry_limit, kept.retry_count, kept.retry_delay, kept.retry_backoff, kept.start_after,
                kept.singleton_key, kept.singleton_on, greatest(1, extract(epoch FROM kept.expire_in))::int,
                kept.created_on, kept.completed_on, kept.output, queue.policy
           FROM (${kept}) AS kept JOIN ${schema}.queue ON queue.name = kept.name
         ON CONFLICT DO NOTHING`,
      );
      await client.query(`DROP SCHEMA ${setAside} CASCADE`);
      logger.info({ schema, jobs: moved.rowCount }, 'job queue: pg-boss 10 jobs carried over');
    }
    await client.query('COMMIT');
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}
