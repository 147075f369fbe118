import type { JwtSessions, RateLimiter, UserStore } from '@agora/auth';
import type { PeriodicJob } from '@agora/core';

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

/** The reference's `unconfirmed_user_grace_period_hours`. */
export const UNCONFIRMED_GRACE_HOURS = 48;

export const MAINTENANCE_JOBS = {
  purgeUnconfirmedUsers: 'purge-unconfirmed-users',
  sweepRateLimits: 'sweep-rate-limits',
  purgeExpiredRefreshTokens: 'purge-expired-refresh-tokens',
  purgeOrphanMedia: 'purge-orphan-media',
} as const;

export interface MaintenanceDeps {
  accounts: Pick<UserStore, 'purgeUnconfirmed'>;
  rateLimiter: Pick<RateLimiter, 'sweep'>;
  sessions: Pick<JwtSessions, 'purgeExpired'>;
  media: { purgeOrphanFiles(): Promise<number> };
}

/** The housekeeping of accounts and sessions: each job deletes rows nobody will read again. */
export function maintenanceJobs({ accounts, rateLimiter, sessions, media }: MaintenanceDeps): PeriodicJob[] {
  return [
    {
      name: MAINTENANCE_JOBS.purgeUnconfirmedUsers,
      periodMs: HOUR_MS,
      run: () => accounts.purgeUnconfirmed(UNCONFIRMED_GRACE_HOURS),
    },
    {
      // Expired windows are never read again; sweeping often keeps the UNLOGGED table small.
      name: MAINTENANCE_JOBS.sweepRateLimits,
      periodMs: 10 * MINUTE_MS,
      run: () => rateLimiter.sweep(),
    },
    {
      name: MAINTENANCE_JOBS.purgeExpiredRefreshTokens,
      periodMs: DAY_MS,
      run: () => sessions.purgeExpired(),
    },
    {
      // Files of media rows deleted with their profile or account (the table's trigger queued them).
      name: MAINTENANCE_JOBS.purgeOrphanMedia,
      periodMs: 10 * MINUTE_MS,
      run: () => media.purgeOrphanFiles(),
    },
  ];
}
