import type { RootQueryTypeResolvers } from '../../../../graphql/resolvers-types.generated.js';
import { actingProfile } from '../../../groups/resolvers/acting-profile.js';
import { requireUser } from '../../../users/guards.js';

/** Members of the list's group. */
export const todoList: RootQueryTypeResolvers['todoList'] = async (_parent, { id }, ctx) => {
  const user = await requireUser(ctx);
  return ctx.app.todos.list(await actingProfile(ctx, user), id);
};
