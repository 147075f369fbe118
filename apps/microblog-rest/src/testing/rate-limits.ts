import { setTimeout as sleep } from 'node:timers/promises';
import type { RateLimitPolicy } from '@agora/auth';

/**
 * Waits, if needed, until at least `needMs` are left in the current window of `policy` (windows are
 * aligned on the clock): a test that spends a whole limit must not see the counter reset midway.
 * The wait (up to `needMs`, depending on the clock) is added to `test`'s timeout, so the test keeps
 * its whole budget for its own work.
 */
export async function awayFromWindowEdge(
  test: Mocha.Context,
  policy: RateLimitPolicy,
  needMs: number,
): Promise<void> {
  const windowMs = policy.windowSeconds * 1000;
  const left = windowMs - (Date.now() % windowMs);
  if (left >= needMs) return;
  test.timeout(test.timeout() + left + 50);
  await sleep(left + 50);
}
