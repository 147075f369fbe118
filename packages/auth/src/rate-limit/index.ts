export {
  RateLimiter,
  mostRestrictive,
  retryAfterSeconds,
  type RateLimitCaller,
  type RateLimitCheck,
  type RateLimiterOptions,
  type RateLimitResult,
} from './rate-limiter.js';
export {
  EVENTS_POLICIES,
  MICROBLOG_POLICIES,
  assertPolicy,
  type RateLimitPolicy,
} from './rate-limit.policies.js';
export {
  emailSubject,
  ipSubject,
  parseIp,
  tokenSubject,
  userSubject,
  type ParsedIp,
  type RateLimitSubject,
} from './rate-limit.subjects.js';
export { addressSafelist, LOOPBACK_SAFELIST } from './rate-limit.safelist.js';
export {
  rateLimit,
  rateLimitHeaders,
  rateLimitState,
  RateLimitGate,
  type RateLimitDecision,
  type RateLimitMiddlewareOptions,
  type RateLimitState,
} from './rate-limit.middleware.js';
export { expressClientIp } from './client-ip.js';
