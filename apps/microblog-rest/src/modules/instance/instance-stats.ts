import { CounterRegistry, type Logger } from '@agora/core';

/**
 * The usage figures the instance documents publish (v1 `stats`, v2 `usage`, NodeInfo `usage`).
 *
 * The instance module owns none of the underlying tables: the module that does contributes a
 * counter when the context is composed, e.g. accounts:
 *   stats.contribute('users', () => accounts.countLocal());
 * A figure nobody contributes is 0, so the documents stay complete while modules arrive.
 */
export interface InstanceStats {
  /** Local accounts able to log in (v1 `stats.user_count`, NodeInfo `users.total`). */
  users: number;
  /** Local users active in the last 4 weeks (v2 `usage.users.active_month`, NodeInfo `activeMonth`). */
  activeUsersMonth: number;
  /** Local users active in the last 6 months (NodeInfo `activeHalfyear`). */
  activeUsersHalfyear: number;
  /** Statuses written by local users (v1 `stats.status_count`, NodeInfo `localPosts`). */
  localStatuses: number;
  /** Other instances this one knows of (v1 `stats.domain_count`). */
  knownDomains: number;
}

export type InstanceStatName = keyof InstanceStats;

export const INSTANCE_STAT_NAMES: readonly InstanceStatName[] = [
  'users',
  'activeUsersMonth',
  'activeUsersHalfyear',
  'localStatuses',
  'knownDomains',
];

/** Where modules contribute the figures above; the instance documents cache the snapshot themselves. */
export class InstanceStatsRegistry extends CounterRegistry<InstanceStatName> {
  constructor(logger: Logger) {
    super(INSTANCE_STAT_NAMES, { logger });
  }
}
