import type { Logger } from '@agora/core';

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

export type InstanceStatCounter = () => Promise<number>;

export const INSTANCE_STAT_NAMES: readonly InstanceStatName[] = [
  'users',
  'activeUsersMonth',
  'activeUsersHalfyear',
  'localStatuses',
  'knownDomains',
];

export class InstanceStatsRegistry {
  private readonly counters = new Map<InstanceStatName, InstanceStatCounter>();

  constructor(private readonly logger: Logger) {}

  /** Makes `counter` the source of one figure; a second contribution to the same figure is a wiring bug. */
  contribute(name: InstanceStatName, counter: InstanceStatCounter): void {
    if (this.counters.has(name)) throw new Error(`instance stat "${name}" already has a counter`);
    this.counters.set(name, counter);
  }

  /** Every figure, counted in parallel; a counter that fails reads 0 (logged) rather than breaking discovery. */
  async snapshot(): Promise<InstanceStats> {
    const values = await Promise.all(
      INSTANCE_STAT_NAMES.map(async (name) => {
        const counter = this.counters.get(name);
        if (!counter) return 0;
        try {
          const value = await counter();
          return Number.isFinite(value) && value >= 0 ? Math.floor(value) : 0;
        } catch (error) {
          this.logger.error({ err: error, stat: name }, 'instance stat counter failed');
          return 0;
        }
      }),
    );
    const stats = {} as InstanceStats;
    INSTANCE_STAT_NAMES.forEach((name, index) => {
      stats[name] = values[index] ?? 0;
    });
    return stats;
  }
}
