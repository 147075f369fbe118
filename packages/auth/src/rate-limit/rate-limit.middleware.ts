import type { Request, RequestHandler, Response } from 'express';
import { RateLimited, type Logger } from '@agora/core';
import {
  counterKey,
  mostRestrictive,
  retryAfterSeconds,
  type RateLimitCheck,
  type RateLimiter,
  type RateLimitResult,
} from './rate-limiter.js';

export interface RateLimitMiddlewareOptions {
  /** Where an unreachable limiter is reported; default: the limiter's logger. */
  logger?: Logger;
  /** The message of the `RateLimited` error a refused request is failed with. */
  message?: string;
}

/** The headers Mastodon sends on throttled routes; `X-RateLimit-Reset` is ISO 8601. */
export function rateLimitHeaders(result: RateLimitResult): Record<string, string> {
  return {
    'X-RateLimit-Limit': String(result.limit),
    'X-RateLimit-Remaining': String(result.remaining),
    'X-RateLimit-Reset': result.resetAt.toISOString(),
  };
}

/** What earlier rate-limit steps did for one request: counters already hit, the tightest limit seen. */
export interface RateLimitState {
  counted: Set<string>;
  shown?: RateLimitResult;
}

/** The outcome of counting a request: the X-RateLimit-* headers to send, plus Retry-After when refused. */
export interface RateLimitDecision {
  allowed: boolean;
  headers: Record<string, string>;
  /** When refused: the seconds `Retry-After` says. */
  retryAfterSeconds?: number;
}

const STATE = Symbol('agora.rateLimit');

/** The rate-limit state of an Express request, kept on `res.locals`. */
export function rateLimitState(res: Response): RateLimitState {
  const locals = res.locals as Record<symbol, RateLimitState | undefined>;
  return (locals[STATE] ??= { counted: new Set() });
}

/**
 * The decisions of `rateLimit` without Express: the limiter's safelist, counting once per counter and
 * request, the headers, and failing open. The middleware is built on it; a fast lane that answers before
 * Express uses it directly, so both paths limit alike.
 */
export class RateLimitGate {
  private readonly logger: Logger | undefined;
  private readonly failures = { lastLoggedAt: 0, unreported: 0 };

  constructor(
    private readonly limiter: RateLimiter,
    options: Pick<RateLimitMiddlewareOptions, 'logger'> = {},
  ) {
    this.logger = options.logger ?? limiter.logger;
  }

  /** Whether requests from `ip` are never limited (the limiter's safelist). */
  exempt(ip: string | undefined): boolean {
    return this.limiter.exempt(ip);
  }

  /**
   * Counts the checks this request has not counted yet. Null when there was nothing to count, or the
   * limiter could not be reached (logged at most once per half minute): the request goes through.
   */
  async count(checks: readonly RateLimitCheck[], state: RateLimitState): Promise<RateLimitDecision | null> {
    const fresh = checks.filter((check) => {
      const key = counterKey(check.policy, check.subject);
      if (state.counted.has(key)) return false;
      state.counted.add(key);
      return true;
    });
    if (fresh.length === 0) return null;
    let outcome: RateLimitResult;
    try {
      outcome = await this.limiter.hitAll(fresh);
    } catch (error) {
      this.reportFailure(error);
      return null;
    }
    const shown = state.shown ? mostRestrictive([state.shown, outcome]) : outcome;
    state.shown = shown;
    const headers = rateLimitHeaders(shown);
    if (shown.allowed) return { allowed: true, headers };
    const wait = retryAfterSeconds(shown, this.limiter.clock());
    headers['Retry-After'] = String(wait);
    return { allowed: false, headers, retryAfterSeconds: wait };
  }

  private reportFailure(error: unknown): void {
    // One line per half minute at most: a database outage must not also flood the logs.
    const now = Date.now();
    if (now - this.failures.lastLoggedAt >= 30_000) {
      this.logger?.error(
        { err: error, unreported: this.failures.unreported },
        'rate limiter unavailable; letting requests through',
      );
      this.failures.lastLoggedAt = now;
      this.failures.unreported = 0;
    } else {
      this.failures.unreported += 1;
    }
  }
}

/**
 * Express middleware counting each request against the checks `select` returns (null or [] skips
 * the request). Every checked response carries the X-RateLimit-* headers of the most restrictive
 * limit; a refused one (with `Retry-After`) goes to the app's error handler as `RateLimited`, which
 * the app answers in its own format.
 *
 * Mounted on overlapping routes (`/api` and `/api/v1/media`), a request counts once per counter:
 * counters already hit for this request are skipped, and the headers keep the tightest limit seen.
 *
 * When the database cannot be reached it lets the request through and logs: the limits only damp
 * abuse, and a request that needs the same database will fail on its own, so refusing everyone
 * would turn a database hiccup into an outage (Rack::Attack fails open the same way).
 */
export function rateLimit(
  limiter: RateLimiter,
  select: (req: Request) => readonly RateLimitCheck[] | null | undefined,
  options: RateLimitMiddlewareOptions = {},
): RequestHandler {
  const gate = new RateLimitGate(limiter, options);
  const message = options.message ?? 'Too many requests';

  return (req, res, next) => {
    if (gate.exempt(req.ip)) return next();
    let checks: readonly RateLimitCheck[] | null | undefined;
    try {
      checks = select(req);
    } catch (error) {
      return next(error);
    }
    if (!checks || checks.length === 0) return next();

    gate.count(checks, rateLimitState(res)).then((decision) => {
      if (!decision) return next();
      res.set(decision.headers);
      if (decision.allowed) return next();
      next(new RateLimited(message, { retryAfterSeconds: decision.retryAfterSeconds }));
    }, next);
  };
}
