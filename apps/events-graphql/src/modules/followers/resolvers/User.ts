import type { UserResolvers } from '../../../graphql/resolvers-types.generated.js';
import { isSelfOrModerator } from '../../users/guards.js';

export const User: UserResolvers = {
  /** Events to come of the groups the user's profiles follow: for the user or an instance moderator. */
  followedGroupEvents: async (user, { afterDatetime, page, limit }, ctx) => {
    const viewer = await ctx.viewer();
    if (!viewer || !isSelfOrModerator(ctx, viewer, user.id)) return null;
    return ctx.loaders.followers.view.groupEventsOf(user.id, afterDatetime ?? ctx.app.clock(), {
      page: page ?? 1,
      limit: limit ?? 10,
    });
  },
};
