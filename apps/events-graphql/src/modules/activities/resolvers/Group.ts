import { Forbidden, Unauthenticated } from '@agora/core';
import type { GroupResolvers } from '../../../graphql/resolvers-types.generated.js';
import { viewerProfile } from '../../groups/resolvers/acting-profile.js';
import { groupViewer } from '../../groups/resolvers/viewer-role.js';
import { isMemberRole } from '../../members/member-row.js';
import type { AuthorFilter } from '../activity.service.js';

/**
 * `Group.activity`: the group's stream, newest first, for its members and instance moderators; anonymous
 * callers are refused by the reference's object guard, others get `unauthorized`. `author: SELF` keeps
 * the caller's own actions, `BY` the others'.
 */
export const Group: Pick<GroupResolvers, 'activity'> = {
  activity: async (group, { type, author, page, limit }, ctx) => {
    const caller = await groupViewer(ctx, group.id);
    if (!caller.signedIn)
      throw new Unauthenticated('Not authorized to access object paginated_activity_list');
    if (!isMemberRole(caller.role) && !caller.instanceModerator) throw new Forbidden();
    const profile = await viewerProfile(ctx);
    let filter: AuthorFilter = null;
    if (author && profile) filter = author === 'SELF' ? { self: profile.id } : { by: profile.id };
    return ctx.app.activities.page({
      groupId: group.id,
      type: type ?? null,
      author: filter,
      page: page ?? 1,
      limit: limit ?? 10,
    });
  },
};
