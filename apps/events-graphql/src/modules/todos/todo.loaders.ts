import { isUuid } from '@agora/core';
import DataLoader from 'dataloader';
import type { AppContext } from '../../context.js';
import { pagedByParent, type Page, type PageKey } from '../posts/views/paged-by-parent.js';
import { TODO_COLUMNS, TODO_LIST_COLUMNS, type TodoListRow, type TodoRow } from './todo-row.js';
import { TodosView } from './views/todos.view.js';

/** Batches of one operation (`ctx.loaders.todos`). */
export interface TodoLoaders {
  listById: DataLoader<string, TodoListRow | null>;
  /** `Group.todoLists` pages, oldest first. */
  ofGroup: DataLoader<PageKey, Page<TodoListRow>, string>;
  /** `TodoList.todos` pages. */
  inList: DataLoader<PageKey, Page<TodoRow>, string>;
}

export function createTodoLoaders(app: AppContext): TodoLoaders {
  const view = new TodosView(app.sequelize);
  return {
    listById: new DataLoader(async (ids) => {
      const found = await view.listsByIds(ids.filter(isUuid));
      return ids.map((id) => found.get(id) ?? null);
    }),
    ofGroup: pagedByParent<TodoListRow>(app.sequelize, {
      columns: TODO_LIST_COLUMNS,
      from: 'FROM todo_lists l',
      parentColumn: 'l.group_id',
      where: () => '',
      order: 'l.inserted_at, l.id',
    }),
    inList: pagedByParent<TodoRow>(app.sequelize, {
      columns: TODO_COLUMNS,
      from: 'FROM todos t JOIN todo_lists l ON l.id = t.todo_list_id',
      parentColumn: 't.todo_list_id',
      parentType: 'uuid',
      where: () => '',
      // Open ones first, then in the order they were added.
      order: 't.status, t.inserted_at, t.id',
    }),
  };
}
