import type { GroupResolvers } from '../../../graphql/resolvers-types.generated.js';
import { groupViewer } from '../../groups/resolvers/viewer-role.js';
import { isMemberRole } from '../../members/member-row.js';

/**
 * `Group.posts` (behaviour 26): every post, drafts and private ones too, for the group's members and
 * instance moderators; published PUBLIC ones for anyone else, anonymous callers included.
 */
export const Group: Pick<GroupResolvers, 'posts'> = {
  posts: async (group, { page, limit }, ctx) => {
    const caller = await groupViewer(ctx, group.id);
    const scope = isMemberRole(caller.role) || caller.instanceModerator ? 'members' : 'public';
    return ctx.loaders.posts.ofGroup.load({ parentId: group.id, scope, page: page ?? 1, limit: limit ?? 10 });
  },
};
