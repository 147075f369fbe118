import type { UserResolvers } from '../../../graphql/resolvers-types.generated.js';
import { isSelfOrModerator } from '../../users/guards.js';

export const User: UserResolvers = {
  /** A user's drafts: for the user or an instance moderator, null for anyone else. */
  drafts: async (user, { page, limit }, ctx) => {
    const viewer = await ctx.viewer();
    if (!viewer || !isSelfOrModerator(ctx, viewer, user.id)) return null;
    return ctx.loaders.events.drafts.load({ ownerId: user.id, page: page ?? 1, limit: limit ?? 10 });
  },
};
