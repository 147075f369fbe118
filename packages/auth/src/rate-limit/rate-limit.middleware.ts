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

/**
 * Whether an address is on a safelist of addresses and CIDR ranges (`10.0.0.0/8`): requests from
 * there are never limited. An empty list matches nothing. Throws on an entry that is not an address.
 */
export function addressSafelist(entries: readonly string[]): (ip: string | undefined) => boolean {
  const list = blockList(entries);
  if (list === undefined) return () => false;
  // Answers by address string: parsing an address for the BlockList costs more than the lookup.
  const known = new Map<string, boolean>();
  return (ip) => {
    if (ip === undefined) return false;
    let listed = known.get(ip);
    if (listed === undefined) {
      listed = isListed(list, ip);
      if (known.size >= SAFELIST_MEMO_MAX) known.clear();
      known.set(ip, listed);
    }
    return listed;
  };
}

const SAFELIST_MEMO_MAX = 4096;

/** What earlier rate-limit steps did for one request: counters already hit, the tightest limit seen. */
export interface RateLimitState {
  counted: Set<string>;
  shown?: RateLimitResult;
}

/** The outcome of counting a request: the X-RateLimit-* headers to send, plus Retry-After when refused. */
export interface RateLimitDecision {
  allowed: boolean;
  headers: Record<string, string>;
}

const STATE = Symbol('agora.rateLimit');

/** The rate-limit state of an Express request, kept on `res.locals`. */
export function rateLimitState(res: Response): RateLimitState {
  const locals = res.locals as Record<symbol, RateLimitState | undefined>;
  return (locals[STATE] ??= { counted: new Set() });
}

/**
 * The decisions of `rateLimit` without Express: the safelist, counting once per counter and request,
 * the headers, and failing open. The middleware is built on it; a fast lane that answers before
 * Express uses it directly, so both paths limit alike.
 */
export class RateLimitGate {
  private readonly safelisted: (ip: string | undefined) => boolean;
  private readonly logger: Logger | undefined;
  private readonly failures = { lastLoggedAt: 0, unreported: 0 };

  constructor(
    private readonly limiter: RateLimiter,
    options: Pick<RateLimitMiddlewareOptions, 'safelist' | 'logger'> = {},
  ) {
    this.safelisted = addressSafelist(options.safelist ?? []);
    this.logger = options.logger ?? limiter.logger;
  }

  /** Whether requests from `ip` are never limited. */
  exempt(ip: string | undefined): boolean {
    return this.safelisted(ip);
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
    headers['Retry-After'] = String(retryAfterSeconds(shown, this.limiter.clock()));
    return { allowed: false, headers };
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
      res.status(429).json({ error: message });
    }, next);
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
