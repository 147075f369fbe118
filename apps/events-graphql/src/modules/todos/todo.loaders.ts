import { isUuid } from '@agora/core';
import DataLoader from 'dataloader';
import type { AppContext } from '../../context.js';
import { loadOwnedPages, pageKeyOf, type Page, type PageKey } from '../resources/views/owned-pages.js';
import type { TodoListRow, TodoRow } from './todo-row.js';
import { TodosView } from './views/todos.view.js';

/** Batches of one operation (`ctx.loaders.todos`). */
export interface TodoLoaders {
  listById: DataLoader<string, TodoListRow | null>;
  /** `Group.todoLists` pages. */
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
    ofGroup: new DataLoader(
      (keys) => loadOwnedPages(keys, (owners, page, limit) => view.ofGroups(owners, page, limit)),
      { cacheKeyFn: pageKeyOf },
    ),
    inList: new DataLoader(
      (keys) => loadOwnedPages(keys, (owners, page, limit) => view.inLists(owners, page, limit)),
      { cacheKeyFn: pageKeyOf },
    ),
  };
}
