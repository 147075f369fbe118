import type { FollowerResolvers } from '../../../graphql/resolvers-types.generated.js';

// id, approved, notify, insertedAt and updatedAt are read as stored.
export const Follower: FollowerResolvers = {
  actor: (follower, _args, ctx) => ctx.loaders.persons.actors.load(follower.actorId),
  targetActor: (follower, _args, ctx) => ctx.loaders.persons.actors.load(follower.targetActorId),
};
