import type { Resolvers } from '../../graphql/resolvers-types.generated.js';
import { Group } from './resolvers/Group.js';
import { createTodo } from './resolvers/Mutation/createTodo.js';
import { createTodoList } from './resolvers/Mutation/createTodoList.js';
import { updateTodo } from './resolvers/Mutation/updateTodo.js';
import { todo } from './resolvers/Query/todo.js';
import { todoList } from './resolvers/Query/todoList.js';
import { Todo } from './resolvers/Todo.js';
import { TodoList } from './resolvers/TodoList.js';

/** The todos module's resolvers: one file per root field under resolvers/Query and resolvers/Mutation. */
export const todosResolvers: Resolvers = {
  Group,
  Todo,
  TodoList,
  RootQueryType: { todoList, todo },
  RootMutationType: { createTodoList, createTodo, updateTodo },
};
