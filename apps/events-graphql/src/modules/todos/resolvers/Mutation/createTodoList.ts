import type { RootMutationTypeResolvers } from '../../../../graphql/resolvers-types.generated.js';
import { actingProfile } from '../../../groups/resolvers/acting-profile.js';
import { requireUser } from '../../../users/guards.js';

/** Members of the group, as their default profile. */
export const createTodoList: RootMutationTypeResolvers['createTodoList'] = async (
  _parent,
  { groupId, title },
  ctx,
) => {
  const user = await requireUser(ctx);
  return ctx.app.todos.createList(await actingProfile(ctx, user), groupId, title);
};
