import type { UserResolvers } from '../../../graphql/resolvers-types.generated.js';
import { isSelfOrModerator } from '../../users/guards.js';

export const User: UserResolvers = {
  /** The participations of all the user's profiles: for the user or an instance moderator. */
  participations: async (user, { afterDatetime, beforeDatetime, page, limit }, ctx) => {
    const viewer = await ctx.viewer();
    if (!viewer || !isSelfOrModerator(ctx, viewer, user.id)) return null;
    return ctx.loaders.participations.view.ofUser(
      user.id,
      { after: afterDatetime ?? null, before: beforeDatetime ?? null },
      { page: page ?? 1, limit: limit ?? 10 },
    );
  },
};
