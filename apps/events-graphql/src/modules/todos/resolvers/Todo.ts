import type { TodoResolvers } from '../../../graphql/resolvers-types.generated.js';

// id, title, status and dueDate are read as stored.
export const Todo: TodoResolvers = {
  todoList: (todo, _args, ctx) => ctx.loaders.todos.listById.load(todo.todoListId),
  creator: (todo, _args, ctx) =>
    todo.creatorId === null ? null : ctx.loaders.persons.actors.load(todo.creatorId),
  assignedTo: (todo, _args, ctx) =>
    todo.assignedToId === null ? null : ctx.loaders.persons.actors.load(todo.assignedToId),
};
