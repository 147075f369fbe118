import type { Resolvers } from '../../graphql/resolvers-types.generated.js';

export const statisticsResolvers: Resolvers = {
  RootQueryType: {
    statistics: (_parent, _args, { app }) => app.statistics.snapshot(),
  },
};
