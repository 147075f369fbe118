import type { UserResolvers } from '../../../graphql/resolvers-types.generated.js';

export const User: UserResolvers = {
  /** The conversations of all the user's profiles: for the user only (private messages stay private). */
  conversations: async (user, { page, limit }, ctx) => {
    const viewer = await ctx.viewer();
    if (!viewer || viewer.id !== user.id) return null;
    return ctx.loaders.conversations.view.ofUser(user.id, { page: page ?? 1, limit: limit ?? 10 });
  },
};
