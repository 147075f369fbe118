import type { Request, RequestHandler } from 'express';
import {
  ipSubject,
  MICROBLOG_POLICIES,
  rateLimit,
  tokenSubject,
  userSubject,
  type RateLimitCheck,
  type RateLimiter,
} from '@agora/auth';
import { lookupBearer } from '../modules/oauth/bearer.js';
import type { BearerAuth, OAuthService } from '../modules/oauth/oauth.service.js';

/**
 * The throttles of every `/api` request (Mastodon's Rack::Attack table): a user token counts per user
 * (1500 / 5 min) and per token (300 / 5 min), an app token per token and per IP, no valid token per
 * IP (300 / 5 min). Responses carry the X-RateLimit-* headers of the limit closest to exhaustion.
 */
export function apiRateLimit(limiter: RateLimiter, oauth: OAuthService): RequestHandler[] {
  const callers = new WeakMap<Request, BearerAuth>();
  // The lookup is the one the route's guard reuses (lookupBearer): one per request.
  const identify: RequestHandler = async (req, res, next) => {
    // A lookup failure counts the request by IP; the route's own guard reports the failure.
    const auth = await lookupBearer(req, res, oauth).catch(() => null);
    if (auth) callers.set(req, auth);
    next();
  };
  const limit = rateLimit(limiter, (req) => apiRateLimitChecks(callers.get(req) ?? null, req.ip));
  return [identify, limit];
}

/** What one `/api` request counts against, by its caller (null: no valid token) and address. */
export function apiRateLimitChecks(auth: BearerAuth | null, ip: string | undefined): RateLimitCheck[] {
  const checks: RateLimitCheck[] = [];
  if (auth) checks.push({ policy: MICROBLOG_POLICIES.apiToken, subject: tokenSubject(auth.tokenId) });
  if (auth?.userId) {
    checks.push({ policy: MICROBLOG_POLICIES.apiUser, subject: userSubject(auth.userId) });
  } else {
    const subject = ipOf(ip);
    if (subject) checks.push({ policy: MICROBLOG_POLICIES.apiIp, subject });
  }
  return checks;
}

/** `POST /api/v1/accounts`: 5 sign-ups per IP in 30 minutes. */
export function signUpRateLimit(limiter: RateLimiter): RequestHandler {
  return rateLimit(limiter, (req) => {
    const ip = ipOf(req.ip);
    return ip ? [{ policy: MICROBLOG_POLICIES.signUp, subject: ip }] : null;
  });
}

function ipOf(ip: string | undefined): ReturnType<typeof ipSubject> | undefined {
  try {
    return ip === undefined ? undefined : ipSubject(ip);
  } catch {
    return undefined;
  }
}
