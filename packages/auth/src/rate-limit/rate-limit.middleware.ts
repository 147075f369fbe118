import { BlockList } from 'node:net';
import type { Request, RequestHandler, Response } from 'express';
import type { Logger } from '@agora/core';
import {
  counterKey,
  mostRestrictive,
  retryAfterSeconds,
  type RateLimitCheck,
  type RateLimiter,
  type RateLimitResult,
} from './rate-limiter.js';
import { parseIp } from './rate-limit.subjects.js';

/** Mastodon never throttles loopback. We do by default: our own tests run on loopback. */
export const LOOPBACK_SAFELIST: readonly string[] = ['127.0.0.1', '::1'];

export interface RateLimitMiddlewareOptions {
  /** Addresses or CIDR ranges (`10.0.0.0/8`) never limited, checked against `req.ip`. Default: none. */
  safelist?: readonly string[];
  /** Where an unreachable limiter is reported; default: the limiter's logger. */
  logger?: Logger;
  /** The 429 body's `error`. */
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

/** What earlier rate-limit middlewares did for this request. */
interface RequestState {
  counted: Set<string>;
  shown?: RateLimitResult;
}

const STATE = Symbol('agora.rateLimit');

function requestState(res: Response): RequestState {
  const locals = res.locals as Record<symbol, RequestState | undefined>;
  return (locals[STATE] ??= { counted: new Set() });
}

/**
 * Express middleware counting each request against the checks `select` returns (null or [] skips
 * the request). Every checked response carries the X-RateLimit-* headers of the most restrictive
 * limit; a refused one is answered 429 `{"error":"Too many requests"}` with `Retry-After`.
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
  const safelist = blockList(options.safelist ?? []);
  const logger = options.logger ?? limiter.logger;
  const message = options.message ?? 'Too many requests';
  const failures = { lastLoggedAt: 0, unreported: 0 };

  return (req, res, next) => {
    if (safelist && req.ip !== undefined && isListed(safelist, req.ip)) return next();
    let checks: readonly RateLimitCheck[] | null | undefined;
    try {
      checks = select(req);
    } catch (error) {
      return next(error);
    }
    if (!checks || checks.length === 0) return next();

    const state = requestState(res);
    const fresh = checks.filter((check) => {
      const key = counterKey(check.policy, check.subject);
      if (state.counted.has(key)) return false;
      state.counted.add(key);
      return true;
    });
    if (fresh.length === 0) return next();

    limiter.hitAll(fresh).then(
      (outcome) => {
        const shown = state.shown ? mostRestrictive([state.shown, outcome]) : outcome;
        state.shown = shown;
        res.set(rateLimitHeaders(shown));
        if (shown.allowed) return next();
        res.set('Retry-After', String(retryAfterSeconds(shown, limiter.clock())));
        res.status(429).json({ error: message });
      },
      (error: unknown) => {
        // One line per half minute at most: a database outage must not also flood the logs.
        const now = Date.now();
        if (now - failures.lastLoggedAt >= 30_000) {
          logger?.error(
            { err: error, unreported: failures.unreported },
            'rate limiter unavailable; letting requests through',
          );
          failures.lastLoggedAt = now;
          failures.unreported = 0;
        } else {
          failures.unreported += 1;
        }
        next();
      },
    );
  };
}

function blockList(entries: readonly string[]): BlockList | undefined {
  if (entries.length === 0) return undefined;
  const list = new BlockList();
  for (const entry of entries) {
    const [address = '', prefix] = entry.split('/');
    const parsed = parseIp(address);
    if (!parsed) throw new TypeError(`Rate-limit safelist: not an address or range: ${entry}`);
    if (prefix === undefined) list.addAddress(parsed.address, parsed.family);
    else list.addSubnet(parsed.address, Number(prefix), parsed.family);
  }
  return list;
}

function isListed(list: BlockList, ip: string): boolean {
  const parsed = parseIp(ip);
  return parsed !== undefined && list.check(parsed.address, parsed.family);
}
