import { CounterRegistry, type Logger } from '@agora/core';

/** The counts of the GraphQL `Statistics` type (the resolver checks that the two agree). */
export const STATISTIC_KEYS = [
  'numberOfUsers',
  'numberOfEvents',
  'numberOfLocalEvents',
  'numberOfComments',
  'numberOfLocalComments',
  'numberOfGroups',
  'numberOfLocalGroups',
  'numberOfInstanceFollowers',
  'numberOfInstanceFollowings',
] as const;

export type StatisticKey = (typeof STATISTIC_KEYS)[number];
export type StatisticsValues = Record<StatisticKey, number>;

/**
 * The instance's `statistics`. Each module that owns the counted rows contributes its counter at
 * startup (users → numberOfUsers, events → numberOfEvents/numberOfLocalEvents, …); until then a
 * statistic reads 0. Cached for `ttlMs`.
 */
export class StatisticsService extends CounterRegistry<StatisticKey> {
  constructor(options: { ttlMs: number; logger?: Logger; now?: () => number }) {
    // A failing count is an error of the `statistics` field (as on the reference), not a silent 0.
    super(STATISTIC_KEYS, { ...options, failuresReadZero: false });
  }
}
