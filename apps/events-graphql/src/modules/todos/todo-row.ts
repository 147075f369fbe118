/** A stored todo list (table `todo_lists`): what the GraphQL `TodoList` resolves from. */
export interface TodoListRow {
  id: string;
  url: string;
  groupId: string;
  title: string;
  insertedAt: Date;
  updatedAt: Date;
}

/** A stored todo (table `todos`) with its list's group: what the GraphQL `Todo` resolves from. */
export interface TodoRow {
  id: string;
  url: string;
  todoListId: string;
  groupId: string;
  title: string;
  status: boolean;
  dueDate: Date | null;
  creatorId: string | null;
  assignedToId: string | null;
  insertedAt: Date;
  updatedAt: Date;
}

export const TODO_LIST_COLUMNS = `l.id::text AS "id", l.url, l.group_id::text AS "groupId", l.title,
  l.inserted_at AS "insertedAt", l.updated_at AS "updatedAt"`;

/** Needs `todos t JOIN todo_lists l ON l.id = t.todo_list_id`. */
export const TODO_COLUMNS = `t.id::text AS "id", t.url, t.todo_list_id::text AS "todoListId",
  l.group_id::text AS "groupId", t.title, t.status, t.due_date AS "dueDate",
  t.creator_id::text AS "creatorId", t.assigned_to_id::text AS "assignedToId",
  t.inserted_at AS "insertedAt", t.updated_at AS "updatedAt"`;
