import { Unauthenticated } from '@agora/core';
import type { GroupResolvers } from '../../../graphql/resolvers-types.generated.js';
import { isMemberRole } from '../../members/member-row.js';
import { groupViewer } from '../../groups/resolvers/viewer-role.js';

/** Behaviour 27: anonymous callers are refused, non-members get an empty page, members every resource. */
export const Group: GroupResolvers = {
  resources: async (group, { page, limit }, ctx) => {
    const caller = await groupViewer(ctx, group.id);
    if (!caller.signedIn)
      throw new Unauthenticated('Not authorized to access object paginated_resource_list');
    if (!isMemberRole(caller.role)) return { elements: [], total: 0 };
    return ctx.loaders.resources.ofGroup.load({ parentId: group.id, page: page ?? 1, limit: limit ?? 10 });
  },
};
