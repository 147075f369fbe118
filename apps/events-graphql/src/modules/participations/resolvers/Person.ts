import type { PersonResolvers } from '../../../graphql/resolvers-types.generated.js';
import { isSelfOrModerator } from '../../users/guards.js';

export const Person: PersonResolvers = {
  /** A profile's participations: for its owner or an instance moderator, null for anyone else. */
  participations: async (actor, { eventId, page, limit }, ctx) => {
    const viewer = await ctx.viewer();
    if (!viewer || !isSelfOrModerator(ctx, viewer, actor.userId)) return null;
    return ctx.loaders.participations.view.ofActor(actor.id, eventId ?? null, {
      page: page ?? 1,
      limit: limit ?? 10,
    });
  },
};
