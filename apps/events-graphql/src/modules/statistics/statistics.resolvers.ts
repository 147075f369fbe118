import type { Resolvers } from '../../graphql/resolvers-types.generated.js';
import { statistics } from './resolvers/Query/statistics.js';

export const statisticsResolvers: Resolvers = {
  RootQueryType: { statistics },
};
