import type { RootMutationTypeResolvers } from '../../../../graphql/resolvers-types.generated.js';
import { actingProfile } from '../../../groups/resolvers/acting-profile.js';
import { requireUser } from '../../../users/guards.js';

/** Members of the list's group; the assignee must be a member too. */
export const createTodo: RootMutationTypeResolvers['createTodo'] = async (_parent, args, ctx) => {
  const user = await requireUser(ctx);
  return ctx.app.todos.create(await actingProfile(ctx, user), {
    todoListId: args.todoListId,
    title: args.title,
    status: args.status,
    dueDate: args.dueDate,
    assignedToId: args.assignedToId,
  });
};
