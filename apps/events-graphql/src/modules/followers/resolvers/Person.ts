import type { PersonResolvers } from '../../../graphql/resolvers-types.generated.js';
import { isSelfOrModerator } from '../../users/guards.js';

export const Person: PersonResolvers = {
  /** The groups the profile follows: for its owner or an instance moderator, null for anyone else. */
  follows: async (actor, { group, page, limit }, ctx) => {
    const viewer = await ctx.viewer();
    if (!viewer || !isSelfOrModerator(ctx, viewer, actor.userId)) return null;
    // An unknown group name matches nothing.
    const only = group
      ? await ctx.app.groups.byUsername(group).then(
          (found) => found.id,
          () => '0',
        )
      : null;
    return ctx.loaders.followers.view.ofActor(actor.id, only, {
      page: page ?? 1,
      limit: limit ?? 10,
    });
  },
};
