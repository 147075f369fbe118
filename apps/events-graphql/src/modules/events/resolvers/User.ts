import type { UserResolvers } from '../../../graphql/resolvers-types.generated.js';

export const User: UserResolvers = {
  /** A user's drafts: for the user or an instance moderator, null for anyone else. */
  drafts: async (user, { page, limit }, ctx) => {
    const viewer = await ctx.viewer();
    if (!viewer || (viewer.id !== user.id && !ctx.app.users.canModerate(viewer))) return null;
    return ctx.loaders.events.drafts.load({ ownerId: user.id, page: page ?? 1, limit: limit ?? 10 });
  },
};
