import { Forbidden } from '@agora/core';
import type { TodoListResolvers } from '../../../graphql/resolvers-types.generated.js';
import { isMemberRole } from '../../members/member-row.js';
import { groupViewer } from '../../groups/resolvers/viewer-role.js';
import { TODO_MESSAGES } from '../todo.service.js';

// id and title are read as stored.
export const TodoList: TodoListResolvers = {
  actor: (list, _args, ctx) => ctx.loaders.persons.actors.load(list.groupId),
  /** Members of the list's group only (the reference's refusal for others). */
  todos: async (list, { page, limit }, ctx) => {
    if (!isMemberRole((await groupViewer(ctx, list.groupId)).role)) {
      throw new Forbidden(TODO_MESSAGES.notMember, { code: 'unknown_error' });
    }
    return ctx.loaders.todos.inList.load({ parentId: list.id, page: page ?? 1, limit: limit ?? 10 });
  },
};
