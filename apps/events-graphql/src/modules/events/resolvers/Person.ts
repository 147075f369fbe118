import type { PersonResolvers } from '../../../graphql/resolvers-types.generated.js';
import { isSelfOrModerator } from '../../users/guards.js';

export const Person: PersonResolvers = {
  /** A profile's published events: for its owner or an instance moderator, null for anyone else. */
  organizedEvents: async (actor, { page, limit }, ctx) => {
    const viewer = await ctx.viewer();
    if (!viewer || !isSelfOrModerator(ctx, viewer, actor.userId)) return null;
    return ctx.loaders.events.organized.load({ ownerId: actor.id, page: page ?? 1, limit: limit ?? 10 });
  },
};
