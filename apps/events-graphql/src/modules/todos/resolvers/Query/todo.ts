import type { RootQueryTypeResolvers } from '../../../../graphql/resolvers-types.generated.js';
import { actingProfile } from '../../../groups/resolvers/acting-profile.js';
import { requireUser } from '../../../users/guards.js';

/** Members of the todo's group. */
export const todo: RootQueryTypeResolvers['todo'] = async (_parent, { id }, ctx) => {
  const user = await requireUser(ctx);
  return ctx.app.todos.todo(await actingProfile(ctx, user), id);
};
