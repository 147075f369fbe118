import type { RootMutationTypeResolvers } from '../../../../graphql/resolvers-types.generated.js';
import { actingProfile } from '../../../groups/resolvers/acting-profile.js';
import { requireUser } from '../../../users/guards.js';

/** Members of the todo's group; an omitted argument keeps its value, `assignedToId: null` unassigns. */
export const updateTodo: RootMutationTypeResolvers['updateTodo'] = async (_parent, args, ctx) => {
  const user = await requireUser(ctx);
  return ctx.app.todos.update(await actingProfile(ctx, user), args.id, {
    todoListId: args.todoListId,
    title: args.title,
    status: args.status,
    dueDate: args.dueDate,
    assignedToId: args.assignedToId,
  });
};
