import { CounterRegistry, type Logger } from '@agora/core';
import type { Statistics } from '../../graphql/resolvers-types.generated.js';

export type StatisticKey = Exclude<keyof Statistics, '__typename'>;
export type StatisticsValues = Record<StatisticKey, number>;

export const STATISTIC_KEYS: readonly StatisticKey[] = [
  'numberOfUsers',
  'numberOfEvents',
  'numberOfLocalEvents',
  'numberOfComments',
  'numberOfLocalComments',
  'numberOfGroups',
  'numberOfLocalGroups',
  'numberOfInstanceFollowers',
  'numberOfInstanceFollowings',
];

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
