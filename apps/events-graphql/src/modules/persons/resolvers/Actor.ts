import type { ActorResolvers } from '../../../graphql/resolvers-types.generated.js';

export const Actor: ActorResolvers = {
  // Groups are served by the groups module; every other actor is shown as a person so far.
  __resolveType: (actor) => (actor.type === 'Group' ? 'Group' : 'Person'),
};
