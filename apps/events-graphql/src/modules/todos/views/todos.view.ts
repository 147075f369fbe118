import { QueryTypes, type Sequelize } from 'sequelize';
import { ownedPages, type Page } from '../../resources/views/owned-pages.js';
import { TODO_COLUMNS, TODO_LIST_COLUMNS, type TodoListRow, type TodoRow } from '../todo-row.js';

/** The batched reads of todo lists and todos. */
export class TodosView {
  constructor(private readonly sequelize: Sequelize) {}

  /** `Group.todoLists`: oldest first. */
  ofGroups(groupIds: string[], page: number, limit: number): Promise<Map<string, Page<TodoListRow>>> {
    return ownedPages<TodoListRow>(
      this.sequelize,
      { from: 'todo_lists l', owner: 'l.group_id', columns: TODO_LIST_COLUMNS, order: 'l.inserted_at, l.id' },
      groupIds,
      page,
      limit,
    );
  }

  /** `TodoList.todos`: open ones first, then in the order they were added. */
  inLists(listIds: string[], page: number, limit: number): Promise<Map<string, Page<TodoRow>>> {
    return ownedPages<TodoRow>(
      this.sequelize,
      {
        from: 'todos t JOIN todo_lists l ON l.id = t.todo_list_id',
        owner: 't.todo_list_id',
        columns: TODO_COLUMNS,
        order: 't.status, t.inserted_at, t.id',
      },
      listIds,
      page,
      limit,
    );
  }

  async listsByIds(ids: readonly string[]): Promise<Map<string, TodoListRow>> {
    const rows = await this.sequelize.query<TodoListRow>(
      `SELECT ${TODO_LIST_COLUMNS} FROM todo_lists l WHERE l.id = ANY(ARRAY[:ids]::uuid[])`,
      { type: QueryTypes.SELECT, replacements: { ids: [...ids] } },
    );
    return new Map(rows.map((row) => [row.id, row]));
  }
}
