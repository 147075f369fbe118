import { setTimeout as sleep } from 'node:timers/promises';
import { QueryTypes, type Sequelize } from 'sequelize';

/**
 * Waits until no job of `names` that is due (its `start_after` has come) is left unfinished: the
 * queue port's `drain()` for periodic jobs, which always keep their next period waiting and so would
 * never drain. Reads pg-boss's table, as the port's drain does.
 */
export async function drainDueJobs(
  sequelize: Sequelize,
  names: readonly string[],
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [row] = await sequelize.query<{ count: number }>(
      `SELECT count(*)::int AS count FROM pgboss.job
        WHERE name = ANY($1) AND state < 'completed' AND start_after <= now()`,
      { bind: [names], type: QueryTypes.SELECT },
    );
    if (row!.count === 0) return;
    if (Date.now() > deadline) throw new Error(`jobs still due after ${timeoutMs} ms: ${names.join(', ')}`);
    await sleep(50);
  }
}

/** The singleton keys of the jobs of queue `name` still waiting to start, sorted. */
export async function waitingJobKeys(sequelize: Sequelize, name: string): Promise<string[]> {
  const rows = await sequelize.query<{ key: string }>(
    `SELECT singleton_key AS key FROM pgboss.job WHERE name = $1 AND state = 'created' ORDER BY key`,
    { bind: [name], type: QueryTypes.SELECT },
  );
  return rows.map((row) => row.key);
}
