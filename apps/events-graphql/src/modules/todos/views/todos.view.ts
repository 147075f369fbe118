import { QueryTypes, type Sequelize } from 'sequelize';
import { TODO_LIST_COLUMNS, type TodoListRow } from '../todo-row.js';

/** The batched reads of todo lists by id (the pages: `todo.loaders.ts`). */
export class TodosView {
  constructor(private readonly sequelize: Sequelize) {}

  async listsByIds(ids: readonly string[]): Promise<Map<string, TodoListRow>> {
    const rows = await this.sequelize.query<TodoListRow>(
      `SELECT ${TODO_LIST_COLUMNS} FROM todo_lists l WHERE l.id = ANY(ARRAY[:ids]::uuid[])`,
      { type: QueryTypes.SELECT, replacements: { ids: [...ids] } },
    );
    return new Map(rows.map((row) => [row.id, row]));
  }
}
