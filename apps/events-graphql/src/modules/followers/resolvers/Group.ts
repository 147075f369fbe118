import { Unauthenticated } from '@agora/core';
import type { GroupResolvers } from '../../../graphql/resolvers-types.generated.js';
import { groupViewer } from '../../groups/resolvers/viewer-role.js';
import { isModeratorRole } from '../../members/member-row.js';

export const Group: GroupResolvers = {
  /** §2.2: the list for the group's moderators and instance moderators; others get the count only. */
  followers: async (group, { approved, page, limit }, ctx) => {
    const caller = await groupViewer(ctx, group.id);
    if (!caller.signedIn)
      throw new Unauthenticated('Not authorized to access object paginated_follower_list');
    const pageOf = await ctx.loaders.followers.view.ofTarget(group.id, approved ?? null, {
      page: page ?? 1,
      limit: limit ?? 10,
    });
    if (isModeratorRole(caller.role) || caller.instanceModerator) return pageOf;
    return { elements: [], total: pageOf.total };
  },
};
