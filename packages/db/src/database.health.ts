import { QueryTypes, type Sequelize } from 'sequelize';

export interface DatabaseCheck {
  ok: boolean;
  latencyMs: number;
  error?: string;
}

/** One round trip through the pool, bounded by `timeoutMs`: what GET /health reports. */
export async function checkDatabase(sequelize: Sequelize, timeoutMs = 2_000): Promise<DatabaseCheck> {
  const started = performance.now();
  const elapsed = () => Math.round((performance.now() - started) * 100) / 100;
  let timer: NodeJS.Timeout | undefined;
  const query = sequelize.query('SELECT 1', { type: QueryTypes.SELECT, raw: true, logging: false });
  // If the timeout wins, the query may still fail later: nobody is waiting for it then.
  query.catch(() => undefined);
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    await Promise.race([query, timeout]);
    return { ok: true, latencyMs: elapsed() };
  } catch (error) {
    return { ok: false, latencyMs: elapsed(), error: error instanceof Error ? error.message : String(error) };
  } finally {
    clearTimeout(timer);
  }
}
