import type { FeedTokenResolvers } from '../../../graphql/resolvers-types.generated.js';
import { ownerUser } from './owner.js';

// `token` is read as stored; only the token's owner ever reaches one.
export const FeedToken: FeedTokenResolvers = {
  actor: (token, _args, ctx) => (token.actorId ? ctx.loaders.persons.actors.load(token.actorId) : null),
  user: (token, _args, ctx) => ownerUser(token.userId, ctx),
};
