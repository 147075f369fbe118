import type { Statistics } from '../../graphql/resolvers-types.generated.js';

export type StatisticKey = Exclude<keyof Statistics, '__typename'>;
export type StatisticsValues = Record<StatisticKey, number>;
/** Counts something, usually with one SQL COUNT on the contributing module's table. */
export type StatisticCounter = () => Promise<number>;

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
 * The instance's counters. Each module that owns the counted rows contributes its counter at startup
 * (users → numberOfUsers, events → numberOfEvents/numberOfLocalEvents, …); a statistic without a
 * contributor is 0, because nothing of that kind can exist yet. Results are cached for `ttlMs`, and
 * concurrent callers share one computation.
 */
export class StatisticsService {
  private readonly counters = new Map<StatisticKey, StatisticCounter>();
  private cached: { values: StatisticsValues; expiresAt: number } | null = null;
  private pending: Promise<StatisticsValues> | null = null;

  constructor(private readonly options: { ttlMs: number; now?: () => number }) {}

  contribute(key: StatisticKey, counter: StatisticCounter): void {
    if (this.counters.has(key)) throw new Error(`statistic ${key} already has a contributor`);
    this.counters.set(key, counter);
    this.cached = null;
  }

  async get(): Promise<StatisticsValues> {
    const now = (this.options.now ?? Date.now)();
    if (this.cached && this.cached.expiresAt > now) return this.cached.values;
    this.pending ??= this.compute().finally(() => (this.pending = null));
    return this.pending;
  }

  private async compute(): Promise<StatisticsValues> {
    const entries = await Promise.all(
      STATISTIC_KEYS.map(async (key) => {
        const counter = this.counters.get(key);
        return [key, counter ? await counter() : 0] as const;
      }),
    );
    const values = Object.fromEntries(entries) as StatisticsValues;
    this.cached = { values, expiresAt: (this.options.now ?? Date.now)() + this.options.ttlMs };
    return values;
  }
}
