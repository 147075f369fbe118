import { Unauthenticated } from '@agora/core';
import type { GroupResolvers } from '../../../graphql/resolvers-types.generated.js';
import { isMemberRole } from '../../members/member-row.js';
import { groupViewer } from '../../groups/resolvers/viewer-role.js';

/** Anonymous callers are refused; non-members get the count without the lists, as the reference answers. */
export const Group: GroupResolvers = {
  todoLists: async (group, { page, limit }, ctx) => {
    const caller = await groupViewer(ctx, group.id);
    if (!caller.signedIn)
      throw new Unauthenticated('Not authorized to access object paginated_todo_list_list');
    const found = await ctx.loaders.todos.ofGroup.load({
      parentId: group.id,
      page: page ?? 1,
      limit: limit ?? 10,
    });
    return isMemberRole(caller.role) ? found : { elements: [], total: found.total };
  },
};
