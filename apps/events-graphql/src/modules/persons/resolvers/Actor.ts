import type { ActorResolvers } from '../../../graphql/resolvers-types.generated.js';

export const Actor: ActorResolvers = {
  // Persons are the only actors served so far; groups come with their module.
  __resolveType: () => 'Person',
};
