import type { Sequelize } from 'sequelize';
import { QueryTypes } from 'sequelize';
import { RateLimited, type Logger } from '@agora/core';
import { preparedStatement } from '@agora/db';
import { assertPolicy, type RateLimitPolicy } from './rate-limit.policies.js';
import { addressSafelist } from './rate-limit.safelist.js';
import type { RateLimitSubject } from './rate-limit.subjects.js';

export interface RateLimitResult {
  /** Whether this hit is within the limit (for `peek`: whether the next one would be). */
  allowed: boolean;
  limit: number;
  /** Hits left in the current window after this one, never below 0. */
  remaining: number;
  /** When the current window ends and the count starts again. */
  resetAt: Date;
  /** The policy this result is about (for `hitAll`, the most restrictive one). */
  policy: string;
}

export interface RateLimitCheck {
  policy: RateLimitPolicy;
  subject: RateLimitSubject;
}

export interface RateLimiterOptions {
  /** The clock windows are computed from; tests move it instead of sleeping. */
  now?: () => Date;
  /** Where the Express middleware reports a limiter it could not reach. */
  logger?: Logger;
  /**
   * Addresses and CIDR ranges (`10.0.0.0/8`) never limited by any policy (`RATE_LIMIT_SAFELIST`), as
   * Mastodon's safelist lifts every throttle. Default: none. Throws on an entry that is not an address.
   */
  safelist?: readonly string[];
}

/** Who is making a request: the limiter lifts every limit for a safelisted address. */
export interface RateLimitCaller {
  ip: string | undefined;
}

interface Counter {
  key: string;
  windowStart: Date;
  expiresAt: Date;
}

interface PlannedCheck {
  policy: RateLimitPolicy;
  counter: Counter;
}

// One text for any number of checks (arrays), so one prepared statement serves every call. Rows are
// inserted, hence locked, in key order: two requests hitting the same counters cannot deadlock.
const HIT_STATEMENT = preparedStatement<
  { key: string; window_start: Date; hits: number },
  [keys: string[], windowStarts: string[], expiresAt: string[]]
>({
  name: 'agora_rate_limit_hit',
  writes: true,
  text: `INSERT INTO rate_limit_counters AS c (key, window_start, expires_at, hits)
         SELECT key, window_start, expires_at, 1
           FROM unnest($1::text[], $2::timestamptz[], $3::timestamptz[]) AS h (key, window_start, expires_at)
          ORDER BY key, window_start
         ON CONFLICT (key, window_start) DO UPDATE SET hits = c.hits + 1
         RETURNING key, window_start, hits`,
});

/**
 * Fixed-window rate limiting stored in PostgreSQL, so every process of a service shares the counts.
 *
 * One hit is one `INSERT … ON CONFLICT DO UPDATE SET hits = hits + 1 RETURNING hits`: PostgreSQL
 * serialises concurrent hits on the row, so there is no read-then-write race. Refused hits count too
 * (as in Rack::Attack); the window ending is what lets a caller in again.
 *
 * Rows outlive their window until `sweep()` deletes them; a service schedules it (every few minutes)
 * on its job queue. Old rows are never read again, so a late sweep costs only disk.
 */
export class RateLimiter {
  readonly clock: () => Date;
  readonly logger: Logger | undefined;
  private readonly safelisted: (ip: string | undefined) => boolean;

  constructor(
    private readonly sequelize: Sequelize,
    options: RateLimiterOptions = {},
  ) {
    this.clock = options.now ?? (() => new Date());
    this.logger = options.logger;
    this.safelisted = addressSafelist(options.safelist ?? []);
  }

  /** Whether requests from `ip` are never limited (the safelist): nothing is counted for them. */
  exempt(ip: string | undefined): boolean {
    return this.safelisted(ip);
  }

  /** Counts one hit of `subject` against `policy`. */
  async hit(policy: RateLimitPolicy, subject: RateLimitSubject): Promise<RateLimitResult> {
    return this.hitAll([{ policy, subject }]);
  }

  /**
   * Counts one hit on every check in one statement and returns the most restrictive result: if any
   * check is refused, the refusal that lasts longest; otherwise the one with the fewest hits left.
   * Checks sharing a counter (same bucket, subject and window) count it once.
   */
  async hitAll(checks: readonly RateLimitCheck[]): Promise<RateLimitResult> {
    if (checks.length === 0) throw new TypeError('hitAll needs at least one check');
    const now = this.clock();
    const planned = checks.map((check) => plan(check, now));
    const counters = new Map<string, Counter>();
    for (const { counter } of planned) counters.set(counterId(counter), counter);
    const unique = [...counters.values()];

    // A named statement: PostgreSQL plans it once per connection instead of on every hit.
    const rows = await HIT_STATEMENT.rows(this.sequelize, [
      unique.map((c) => c.key),
      unique.map((c) => c.windowStart.toISOString()),
      unique.map((c) => c.expiresAt.toISOString()),
    ]);
    const hits = new Map(
      rows.map((row) => [counterId({ key: row.key, windowStart: row.window_start }), row.hits]),
    );
    const results = planned.map(({ policy, counter }) => {
      const count = hits.get(counterId(counter));
      if (count === undefined) throw new Error(`rate limiter: no count returned for ${policy.name}`);
      return result(policy, counter, count, count <= policy.limit);
    });
    return mostRestrictive(results);
  }

  /**
   * Counts one attempt of `caller` against every check and throws `RateLimited` (with the seconds to
   * wait) when refused: for services and routes. A safelisted caller, or no check, counts nothing (null).
   */
  async enforce(checks: readonly RateLimitCheck[], caller: RateLimitCaller): Promise<RateLimitResult | null> {
    if (checks.length === 0 || this.exempt(caller.ip)) return null;
    const outcome = await this.hitAll(checks);
    if (!outcome.allowed) throw this.refusal(outcome);
    return outcome;
  }

  /**
   * For limits that count failures only (a password check that failed): throws `RateLimited` when a
   * check has no attempt left, without counting; `recordFailure` counts one. Safelisted callers pass.
   */
  async ensureAvailable(checks: readonly RateLimitCheck[], caller: RateLimitCaller): Promise<void> {
    if (checks.length === 0 || this.exempt(caller.ip)) return;
    const states = await Promise.all(checks.map(({ policy, subject }) => this.peek(policy, subject)));
    const outcome = mostRestrictive(states);
    if (!outcome.allowed) throw this.refusal(outcome);
  }

  /** Counts one failed attempt of `caller` against every check (see `ensureAvailable`). */
  async recordFailure(checks: readonly RateLimitCheck[], caller: RateLimitCaller): Promise<void> {
    if (checks.length === 0 || this.exempt(caller.ip)) return;
    await this.hitAll(checks);
  }

  private refusal(outcome: RateLimitResult): RateLimited {
    return new RateLimited('Too many requests', {
      retryAfterSeconds: retryAfterSeconds(outcome, this.clock()),
    });
  }

  /** The state of the current window without counting a hit: `allowed` says if the next hit would be. */
  async peek(policy: RateLimitPolicy, subject: RateLimitSubject): Promise<RateLimitResult> {
    const { counter } = plan({ policy, subject }, this.clock());
    const [row] = await this.sequelize.query<{ hits: number }>(
      'SELECT hits FROM rate_limit_counters WHERE key = $1 AND window_start = $2',
      { type: QueryTypes.SELECT, raw: true, bind: [counter.key, counter.windowStart] },
    );
    const count = row?.hits ?? 0;
    return result(policy, counter, count, count < policy.limit);
  }

  /** Forgets every window of `subject` for `policy` (and for policies sharing its bucket). */
  async reset(policy: RateLimitPolicy, subject: RateLimitSubject): Promise<void> {
    await this.sequelize.query('DELETE FROM rate_limit_counters WHERE key = $1', {
      bind: [counterKey(policy, subject)],
    });
  }

  /** Deletes the windows that ended at or before `olderThan` (default: now); returns how many. */
  async sweep(olderThan: Date = this.clock()): Promise<number> {
    const [row] = await this.sequelize.query<{ deleted: number }>(
      `WITH gone AS (DELETE FROM rate_limit_counters WHERE expires_at <= $1 RETURNING 1)
       SELECT count(*)::int AS deleted FROM gone`,
      { type: QueryTypes.SELECT, raw: true, bind: [olderThan] },
    );
    return row?.deleted ?? 0;
  }
}

/** Seconds until the caller may try again (what `Retry-After` says), at least 1. */
export function retryAfterSeconds(result: RateLimitResult, now: Date = new Date()): number {
  return Math.max(1, Math.ceil((result.resetAt.getTime() - now.getTime()) / 1000));
}

/** Of several results, the one a caller should be told about (see `RateLimiter.hitAll`). */
export function mostRestrictive(results: readonly RateLimitResult[]): RateLimitResult {
  let chosen: RateLimitResult | undefined;
  for (const candidate of results) {
    if (!chosen || moreRestrictive(candidate, chosen)) chosen = candidate;
  }
  if (!chosen) throw new TypeError('mostRestrictive needs at least one result');
  return chosen;
}

function moreRestrictive(a: RateLimitResult, b: RateLimitResult): boolean {
  if (a.allowed !== b.allowed) return !a.allowed;
  if (!a.allowed) return a.resetAt > b.resetAt;
  if (a.remaining !== b.remaining) return a.remaining < b.remaining;
  return a.resetAt > b.resetAt;
}

/** The stored key of a counter, without its window. */
export function counterKey(policy: RateLimitPolicy, subject: RateLimitSubject): string {
  return `${policy.bucket ?? policy.name}|${subject}`;
}

function counterId(counter: Pick<Counter, 'key' | 'windowStart'>): string {
  return `${counter.windowStart.getTime()} ${counter.key}`;
}

function plan({ policy, subject }: RateLimitCheck, now: Date): PlannedCheck {
  assertPolicy(policy);
  const windowMs = policy.windowSeconds * 1000;
  const start = Math.floor(now.getTime() / windowMs) * windowMs;
  return {
    policy,
    counter: {
      key: counterKey(policy, subject),
      windowStart: new Date(start),
      expiresAt: new Date(start + windowMs),
    },
  };
}

function result(policy: RateLimitPolicy, counter: Counter, hits: number, allowed: boolean): RateLimitResult {
  return {
    allowed,
    limit: policy.limit,
    remaining: Math.max(0, policy.limit - hits),
    resetAt: counter.expiresAt,
    policy: policy.name,
  };
}
