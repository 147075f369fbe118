import type { RateLimiter, UserStore } from '@agora/auth';
import type { PeriodicJob } from '@agora/core';
import type { PushHub } from '@agora/federation';

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;

/** Mastodon's user cleanup: sign-ups whose email was never confirmed go after 7 days. */
export const UNCONFIRMED_GRACE_HOURS = 7 * 24;

export const MAINTENANCE_JOBS = {
  purgeUnconfirmedUsers: 'microblog.purge-unconfirmed-users',
  sweepRateLimits: 'microblog.sweep-rate-limits',
  purgePushSubscriptions: 'microblog.purge-push-subscriptions',
  purgeOrphanMedia: 'microblog.purge-orphan-media',
  purgeIdempotencyKeys: 'microblog.purge-idempotency-keys',
  purgeExpiredMutes: 'microblog.purge-expired-mutes',
} as const;

export interface MaintenanceDeps {
  users: Pick<UserStore, 'purgeUnconfirmed'>;
  rateLimiter: Pick<RateLimiter, 'sweep'>;
  pushHub: Pick<PushHub, 'purgeExpired'>;
  media: { purgeOrphanFiles(): Promise<number> };
  statuses: { purgeIdempotencyKeys(): Promise<number> };
  relationships: { purgeExpiredMutes(): Promise<number> };
}

/** The microblog's own housekeeping; the federation package adds its jobs beside these. */
export function maintenanceJobs({
  users,
  rateLimiter,
  pushHub,
  media,
  statuses,
  relationships,
}: MaintenanceDeps): PeriodicJob[] {
  return [
    {
      // The account (actor) goes with its user: the foreign key cascades.
      name: MAINTENANCE_JOBS.purgeUnconfirmedUsers,
      periodMs: HOUR_MS,
      run: () => users.purgeUnconfirmed(UNCONFIRMED_GRACE_HOURS),
    },
    {
      name: MAINTENANCE_JOBS.sweepRateLimits,
      periodMs: 10 * MINUTE_MS,
      run: () => rateLimiter.sweep(),
    },
    {
      // Lapsed PuSH leases, and subscriptions whose callback never confirmed.
      name: MAINTENANCE_JOBS.purgePushSubscriptions,
      periodMs: HOUR_MS,
      run: () => pushHub.purgeExpired(),
    },
    {
      // Files of attachments deleted with their account (the table's trigger queued them).
      name: MAINTENANCE_JOBS.purgeOrphanMedia,
      periodMs: 10 * MINUTE_MS,
      run: () => media.purgeOrphanFiles(),
    },
    {
      // Idempotency-Key answers of POST /api/v1/statuses are kept one hour.
      name: MAINTENANCE_JOBS.purgeIdempotencyKeys,
      periodMs: HOUR_MS,
      run: () => statuses.purgeIdempotencyKeys(),
    },
    {
      // Mutes with a duration, once over (reads already ignore them).
      name: MAINTENANCE_JOBS.purgeExpiredMutes,
      periodMs: 10 * MINUTE_MS,
      run: () => relationships.purgeExpiredMutes(),
    },
  ];
}
