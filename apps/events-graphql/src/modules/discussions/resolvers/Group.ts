import { Unauthenticated } from '@agora/core';
import type { GroupResolvers } from '../../../graphql/resolvers-types.generated.js';
import { groupViewer } from '../../groups/resolvers/viewer-role.js';
import { isMemberRole } from '../../members/member-row.js';

/**
 * `Group.discussions`: anonymous callers are refused by the reference's object guard; members get the
 * group's discussions, most recently active first; other signed-in callers an empty page.
 */
export const Group: Pick<GroupResolvers, 'discussions'> = {
  discussions: async (group, { page, limit }, ctx) => {
    const caller = await groupViewer(ctx, group.id);
    if (!caller.signedIn)
      throw new Unauthenticated('Not authorized to access object paginated_discussion_list');
    if (!isMemberRole(caller.role)) return { elements: [], total: 0 };
    return ctx.loaders.discussions.ofGroup.load({
      parentId: group.id,
      scope: 'members',
      page: page ?? 1,
      limit: limit ?? 10,
    });
  },
};
