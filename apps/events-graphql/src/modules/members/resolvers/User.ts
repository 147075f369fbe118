import type { UserResolvers } from '../../../graphql/resolvers-types.generated.js';
import { isSelfOrModerator } from '../../users/guards.js';

export const User: UserResolvers = {
  /** The memberships of all the user's profiles: for the user or an instance moderator. */
  memberships: async (user, { name, page, limit }, ctx) => {
    const viewer = await ctx.viewer();
    if (!viewer || !isSelfOrModerator(ctx, viewer, user.id)) return null;
    return ctx.loaders.members.view.ofUser(user.id, name ?? null, { page: page ?? 1, limit: limit ?? 10 });
  },
};
