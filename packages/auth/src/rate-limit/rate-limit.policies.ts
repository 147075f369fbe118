/**
 * A fixed-window limit: at most `limit` hits per subject in each `windowSeconds` window (windows are
 * aligned to the Unix epoch, as Rack::Attack and Hammer align theirs).
 */
export interface RateLimitPolicy {
  /** Stable and unique, e.g. `microblog.api.token`; reported in results and logs. */
  readonly name: string;
  readonly limit: number;
  readonly windowSeconds: number;
  /**
   * Policies naming the same bucket (and window length) count into one counter, each against its own
   * limit; without it the counter is the policy's own.
   */
  readonly bucket?: string;
}

const MINUTE = 60;

/** The events service reference (Hammer, 60 s windows): one IP counter for all IP-limited operations. */
const EVENTS_IP_BUCKET = 'events.ip';

function eventsIp(operation: string, limit: number): RateLimitPolicy {
  return { name: `events.${operation}.ip`, bucket: EVENTS_IP_BUCKET, limit, windowSeconds: MINUTE };
}

function eventsEmail(operation: string): RateLimitPolicy {
  return { name: `events.${operation}.email`, limit: 5, windowSeconds: MINUTE };
}

/**
 * `login`, `createUser`, `resendConfirmationEmail`, `sendResetPassword`: 10 per IP and 5 per e-mail
 * each minute; `createEvent` and `uploadMedia`: 60 per IP. Check `ip` and `email` together (hitAll).
 */
export const EVENTS_POLICIES = {
  login: { ip: eventsIp('login', 10), email: eventsEmail('login') },
  createUser: { ip: eventsIp('createUser', 10), email: eventsEmail('createUser') },
  resendConfirmationEmail: {
    ip: eventsIp('resendConfirmationEmail', 10),
    email: eventsEmail('resendConfirmationEmail'),
  },
  sendResetPassword: { ip: eventsIp('sendResetPassword', 10), email: eventsEmail('sendResetPassword') },
  createEvent: { ip: eventsIp('createEvent', 60) },
  uploadMedia: { ip: eventsIp('uploadMedia', 60) },
} as const satisfies Record<string, Record<string, RateLimitPolicy>>;

function microblog(name: string, limit: number, windowSeconds: number): RateLimitPolicy {
  return { name: `microblog.${name}`, limit, windowSeconds };
}

/**
 * The microblog reference's throttles (Mastodon's Rack::Attack table), keyed as the comment says.
 * Responses report the one closest to exhaustion.
 */
export const MICROBLOG_POLICIES = {
  /** Any `/api` request by a signed-in user: per user. */
  apiUser: microblog('api.user', 1500, 5 * MINUTE),
  /** Any `/api` request with an access token: per token. */
  apiToken: microblog('api.token', 300, 5 * MINUTE),
  /** Any `/api` request without a user: per IP. */
  apiIp: microblog('api.ip', 300, 5 * MINUTE),
  /** `POST /api/v\d+/media`: per user. */
  media: microblog('media.user', 30, 30 * MINUTE),
  /** `/media_proxy`: per IP. */
  mediaProxy: microblog('media_proxy.ip', 30, 10 * MINUTE),
  /** `POST /api/v1/accounts`: per IP. */
  signUp: microblog('sign_up.ip', 5, 30 * MINUTE),
  /** Requests carrying `page`, `min_id`, `max_id` or `since_id`: per user, or per IP without one. */
  pagingUser: microblog('paging.user', 300, 15 * MINUTE),
  pagingIp: microblog('paging.ip', 300, 15 * MINUTE),
  /** Deleting a status or undoing a reblog: per user. */
  deleteStatus: microblog('delete_status.user', 30, 30 * MINUTE),
  /** `/auth` sign-up attempts, password resets, e-mail confirmations, logins: per IP, each its own. */
  signUpAttemptsIp: microblog('sign_up_attempts.ip', 25, 5 * MINUTE),
  passwordResetsIp: microblog('password_resets.ip', 25, 5 * MINUTE),
  confirmationsIp: microblog('email_confirmations.ip', 25, 5 * MINUTE),
  loginsIp: microblog('logins.ip', 25, 5 * MINUTE),
  /** Password resets and confirmation e-mails: per e-mail address. */
  passwordResetsEmail: microblog('password_resets.email', 5, 30 * MINUTE),
  confirmationsEmail: microblog('email_confirmations.email', 5, 30 * MINUTE),
  /** Login attempts: per e-mail address (or the user of the sign-in session). */
  loginsEmail: microblog('logins.email', 25, 60 * MINUTE),
  /** Password change: per account. */
  passwordChange: microblog('password_change.user', 10, 10 * MINUTE),
} as const satisfies Record<string, RateLimitPolicy>;

/** Throws unless the policy can be counted: a name, and whole positive numbers. */
export function assertPolicy(policy: RateLimitPolicy): void {
  if (!policy.name) throw new TypeError('A rate-limit policy needs a name');
  if (!Number.isSafeInteger(policy.limit) || policy.limit < 1) {
    throw new TypeError(`Rate-limit policy ${policy.name}: limit must be a whole number ≥ 1`);
  }
  if (!Number.isSafeInteger(policy.windowSeconds) || policy.windowSeconds < 1) {
    throw new TypeError(`Rate-limit policy ${policy.name}: windowSeconds must be a whole number ≥ 1`);
  }
}
