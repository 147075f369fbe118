import { FetchError, FetchHttpError } from '../fetch/index.js';

/** How long deliveries keep trying and how a failing inbox is left alone. All fields optional. */
export interface DeliveryTiming {
  /** Attempts before a delivery is dead-lettered: 17, i.e. Mastodon's 16 retries after the first try. */
  maxAttempts?: number;
  /** Delay before the first retry; doubles per retry up to `retryCapSeconds`. Tests use 0. */
  retryBaseSeconds?: number;
  retryCapSeconds?: number;
  /** How long one job (a batch of POSTs) may run before pg-boss treats its worker as dead and runs it again. */
  attemptTimeoutSeconds?: number;
  /** pg-boss's own retries, used only when a worker died or the handler itself broke (e.g. DB down). */
  crashRetryLimit?: number;
  crashRetryDelaySeconds?: number;
  /** Consecutive failures of one inbox that open its circuit, and for how long. */
  breakerThreshold?: number;
  breakerOpenSeconds?: number;
  /** Distinct UTC days with failures after which a domain is marked unavailable. */
  unavailableAfterDays?: number;
}

export type ResolvedTiming = Required<DeliveryTiming>;

// Schedule: 30 s, 1, 2, 4 … min doubling to a cap of 8 h, plus up to 20 % jitter. The 16 retries
// sum to 30 s·(2^10 − 1) + 6·8 h ≈ 56.5 h, so a delivery gives up after about 2.4–2.8 days.
export const DEFAULT_TIMING: ResolvedTiming = {
  maxAttempts: 17,
  retryBaseSeconds: 30,
  retryCapSeconds: 8 * 3600,
  // A batch of 50 inboxes, 10 at a time, with 10 s fetch timeouts needs at most ~50 s.
  attemptTimeoutSeconds: 120,
  crashRetryLimit: 5,
  crashRetryDelaySeconds: 30,
  // Mastodon's stoplight per inbox: 10 failures, 60 s cool-off.
  breakerThreshold: 10,
  breakerOpenSeconds: 60,
  // Mastodon's DeliveryFailureTracker: 7 distinct days.
  unavailableAfterDays: 7,
};

export function resolveTiming(timing: DeliveryTiming = {}): ResolvedTiming {
  const resolved = { ...DEFAULT_TIMING };
  for (const [name, value] of Object.entries(timing) as Array<[keyof ResolvedTiming, number | undefined]>) {
    if (value === undefined) continue;
    if (!Number.isFinite(value) || value < 0) throw new RangeError(`Delivery timing ${name} must be ≥ 0`);
    resolved[name] = value;
  }
  if (resolved.maxAttempts < 1 || resolved.breakerThreshold < 1 || resolved.unavailableAfterDays < 1) {
    throw new RangeError(
      'Delivery timing: maxAttempts, breakerThreshold and unavailableAfterDays must be ≥ 1',
    );
  }
  return resolved;
}

/** Seconds to wait after failed attempt number `attempt` (1-based). */
export function retryDelaySeconds(
  timing: ResolvedTiming,
  attempt: number,
  random: () => number = Math.random,
): number {
  const exponential = timing.retryBaseSeconds * 2 ** Math.min(attempt - 1, 40);
  const delay = Math.min(exponential, timing.retryCapSeconds);
  return Math.round(delay * (1 + 0.2 * random()));
}

/** What one POST to an inbox came to. */
export type AttemptOutcome =
  | { kind: 'delivered'; status: number }
  /** The remote answered and will never take it (4xx but 408/425/429): end now, dead-letter. */
  | { kind: 'rejected'; status: number | null; error: string }
  /** Worth trying later (5xx, 3xx, 408, 425, 429, timeouts, network errors). */
  | { kind: 'failed'; status: number | null; error: string };

// Mastodon's "unsalvageable" rule; 401 included: a signature this key made once will not pass later.
const RETRYABLE_4XX = new Set([408, 425, 429]);

export function outcomeOfStatus(status: number): AttemptOutcome {
  if (status >= 200 && status < 300) return { kind: 'delivered', status };
  const error = `Inbox answered HTTP ${status}`;
  if (status >= 400 && status < 500 && !RETRYABLE_4XX.has(status)) return { kind: 'rejected', status, error };
  return { kind: 'failed', status, error };
}

/** Fetch errors carry their own verdict; their messages hold no socket text or addresses. */
export function outcomeOfError(error: unknown): AttemptOutcome {
  if (error instanceof FetchHttpError) return outcomeOfStatus(error.status);
  if (error instanceof FetchError) {
    return error.retryable
      ? { kind: 'failed', status: null, error: error.message }
      : { kind: 'rejected', status: null, error: error.message };
  }
  return { kind: 'failed', status: null, error: 'Unexpected error while delivering' };
}

/** The key failure tracking and unavailability use: the URL's authority, lower-case. */
export function domainOf(inboxUrl: string): string {
  return new URL(inboxUrl).host.toLowerCase();
}
