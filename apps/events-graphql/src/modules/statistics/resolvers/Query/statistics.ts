import type { RootQueryTypeResolvers, Statistics } from '../../../../graphql/resolvers-types.generated.js';
import type { StatisticsValues } from '../../statistics.service.js';

/** Fails to compile when the service counts fewer statistics than the SDL's `Statistics` has. */
type Assignable<T extends U, U> = T;
export type StatisticFields = Assignable<StatisticsValues, Omit<Statistics, '__typename'>>;

/** Cached by the service for a short while. */
export const statistics: RootQueryTypeResolvers['statistics'] = (_parent, _args, { app }) =>
  app.statistics.snapshot();
