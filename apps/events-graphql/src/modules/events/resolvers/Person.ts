import type { PersonResolvers } from '../../../graphql/resolvers-types.generated.js';

export const Person: PersonResolvers = {
  /** A profile's published events: for its owner or an instance moderator, null for anyone else. */
  organizedEvents: async (actor, { page, limit }, ctx) => {
    const viewer = await ctx.viewer();
    if (!viewer || (viewer.id !== actor.userId && !ctx.app.users.canModerate(viewer))) return null;
    return ctx.loaders.events.organized.load({ ownerId: actor.id, page: page ?? 1, limit: limit ?? 10 });
  },
};
