import type { UserResolvers } from '../../../graphql/resolvers-types.generated.js';

export const User: UserResolvers = {
  actors: (user, _args, ctx) => ctx.loaders.persons.identities.load(user.id),
  defaultActor: (user, _args, ctx) => ctx.loaders.persons.defaultActor.load(user.id),
};
