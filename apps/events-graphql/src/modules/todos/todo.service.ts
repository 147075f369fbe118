import { randomUUID } from 'node:crypto';
import { BadInput, Forbidden, isUuid, NotFound } from '@agora/core';
import { isRowId } from '@agora/db';
import type { Actor } from '@agora/federation';
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import { roleInGroup } from '../members/member-roles.js';
import { isMemberRole } from '../members/member-row.js';
import { TODO_COLUMNS, TODO_LIST_COLUMNS, type TodoListRow, type TodoRow } from './todo-row.js';

/** The reference's texts (plain-string refusals: `unknown_error`, status_code 500), and ours where it has none. */
export const TODO_MESSAGES = {
  notMember: 'Profile is not member of group',
  listNotFound: "Todo list doesn't exist",
  todoNotFound: "Todo doesn't exist",
  assigneeNotMember: 'The assigned profile is not a member of this group',
  blank: "can't be blank",
  tooLong: 'should be at most 200 character(s)',
} as const;

const REFUSAL = { code: 'unknown_error' } as const;
const TITLE_MAX = 200;

export interface TodoInput {
  todoListId: string;
  title: string;
  status?: boolean | null | undefined;
  dueDate?: Date | null | undefined;
  assignedToId?: string | null | undefined;
}

/** `undefined` keeps a value; `assignedToId: null` and `dueDate: null` clear it. */
export interface TodoPatch {
  todoListId?: string | null | undefined;
  title?: string | null | undefined;
  status?: boolean | null | undefined;
  dueDate?: Date | null | undefined;
  assignedToId?: string | null | undefined;
}

/** After-commit hooks (group federation): a list created, a todo created or updated by `actorId`. */
export interface TodoHooks {
  listCreated(list: TodoListRow, actorId: string): Promise<void>;
  todoChanged(change: 'created' | 'updated', todo: TodoRow, actorId: string): Promise<void>;
}

/**
 * The rules of a group's todo lists (spec §2.2: members only, for every operation). A todo is
 * assigned only to a member of its group; the check and the write share a transaction that locks
 * the group's `group_details` row, as membership changes do (ADR 0027), so the assignee cannot leave
 * in between.
 */
export class TodoService {
  constructor(private readonly options: { sequelize: Sequelize; publicUrl: string; hooks?: TodoHooks }) {}

  async createList(actor: Actor, groupId: string, title: string): Promise<TodoListRow> {
    await this.requireMember(actor.id, groupId);
    const id = randomUUID();
    const [row] = await this.options.sequelize.query<TodoListRow>(
      `INSERT INTO todo_lists AS l (id, url, group_id, title) VALUES (:id, :url, :groupId, :title)
       RETURNING ${TODO_LIST_COLUMNS}`,
      {
        type: QueryTypes.SELECT,
        replacements: {
          id,
          url: `${this.options.publicUrl}/todo-list/${id}`,
          groupId,
          title: validTitle(title),
        },
      },
    );
    await this.options.hooks?.listCreated(row!, actor.id);
    return row!;
  }

  async list(actor: Actor, id: string): Promise<TodoListRow> {
    const list = await this.findList(id);
    if (!list) throw new NotFound(TODO_MESSAGES.listNotFound, REFUSAL);
    await this.requireMember(actor.id, list.groupId);
    return list;
  }

  async todo(actor: Actor, id: string): Promise<TodoRow> {
    const todo = await this.findTodo(id);
    if (!todo) throw new NotFound(TODO_MESSAGES.todoNotFound, REFUSAL);
    await this.requireMember(actor.id, todo.groupId);
    return todo;
  }

  async create(actor: Actor, input: TodoInput): Promise<TodoRow> {
    const list = await this.findList(input.todoListId);
    if (!list) throw new NotFound(TODO_MESSAGES.listNotFound, REFUSAL);
    await this.requireMember(actor.id, list.groupId);
    const title = validTitle(input.title);
    const id = randomUUID();
    const created = await this.options.sequelize.transaction(async (transaction) => {
      const assignedToId = await this.assignee(input.assignedToId ?? null, list.groupId, transaction);
      await this.options.sequelize.query(
        `INSERT INTO todos (id, url, todo_list_id, title, status, due_date, creator_id, assigned_to_id)
         VALUES (:id, :url, :listId, :title, :status, :dueDate, :creatorId, :assignedToId)`,
        {
          transaction,
          replacements: {
            id,
            url: `${this.options.publicUrl}/todo/${id}`,
            listId: list.id,
            title,
            status: input.status ?? false,
            dueDate: input.dueDate ?? null,
            creatorId: actor.id,
            assignedToId,
          },
        },
      );
      return (await this.findTodo(id, transaction))!;
    });
    await this.options.hooks?.todoChanged('created', created, actor.id);
    return created;
  }

  async update(actor: Actor, id: string, patch: TodoPatch): Promise<TodoRow> {
    const todo = await this.findTodo(id);
    if (!todo) throw new NotFound(TODO_MESSAGES.todoNotFound, REFUSAL);
    await this.requireMember(actor.id, todo.groupId);
    const title = patch.title === undefined || patch.title === null ? todo.title : validTitle(patch.title);
    const updated = await this.options.sequelize.transaction(async (transaction) => {
      let listId = todo.todoListId;
      if (
        patch.todoListId !== undefined &&
        patch.todoListId !== null &&
        patch.todoListId !== todo.todoListId
      ) {
        // Another list of the same group only.
        const list = await this.findList(patch.todoListId, transaction);
        if (!list || list.groupId !== todo.groupId) throw new NotFound(TODO_MESSAGES.listNotFound, REFUSAL);
        listId = list.id;
      }
      const assignedToId =
        patch.assignedToId === undefined
          ? todo.assignedToId
          : await this.assignee(patch.assignedToId, todo.groupId, transaction);
      await this.options.sequelize.query(
        `UPDATE todos SET todo_list_id = :listId, title = :title, status = :status, due_date = :dueDate,
           assigned_to_id = :assignedToId, updated_at = now()
         WHERE id = :id`,
        {
          transaction,
          replacements: {
            id: todo.id,
            listId,
            title,
            status: patch.status ?? todo.status,
            dueDate: patch.dueDate === undefined ? todo.dueDate : patch.dueDate,
            assignedToId,
          },
        },
      );
      return (await this.findTodo(todo.id, transaction))!;
    });
    await this.options.hooks?.todoChanged('updated', updated, actor.id);
    return updated;
  }

  async isMember(actorId: string, groupId: string): Promise<boolean> {
    return isMemberRole(await roleInGroup(this.options.sequelize, actorId, groupId));
  }

  private async requireMember(actorId: string, groupId: string): Promise<void> {
    if (!isRowId(groupId) || !(await this.isMember(actorId, groupId))) {
      throw new Forbidden(TODO_MESSAGES.notMember, REFUSAL);
    }
  }

  /** The assignee's id once it is known to be a member (the group's row locked until commit), or null. */
  private async assignee(
    actorId: string | null,
    groupId: string,
    transaction: Transaction,
  ): Promise<string | null> {
    if (actorId === null) return null;
    await this.options.sequelize.query('SELECT 1 FROM group_details WHERE actor_id = :groupId FOR SHARE', {
      transaction,
      replacements: { groupId },
    });
    if (!isMemberRole(await roleInGroup(this.options.sequelize, actorId, groupId, transaction))) {
      throw BadInput.field('assigned_to_id', TODO_MESSAGES.assigneeNotMember);
    }
    return actorId;
  }

  private async findList(id: string, transaction?: Transaction): Promise<TodoListRow | null> {
    if (!isUuid(id)) return null;
    const [row] = await this.options.sequelize.query<TodoListRow>(
      `SELECT ${TODO_LIST_COLUMNS} FROM todo_lists l WHERE l.id = :id`,
      { type: QueryTypes.SELECT, replacements: { id }, transaction },
    );
    return row ?? null;
  }

  private async findTodo(id: string, transaction?: Transaction): Promise<TodoRow | null> {
    if (!isUuid(id)) return null;
    const [row] = await this.options.sequelize.query<TodoRow>(
      `SELECT ${TODO_COLUMNS} FROM todos t JOIN todo_lists l ON l.id = t.todo_list_id WHERE t.id = :id`,
      { type: QueryTypes.SELECT, replacements: { id }, transaction },
    );
    return row ?? null;
  }
}

function validTitle(title: string): string {
  const clean = title.trim();
  if (clean === '') throw BadInput.field('title', TODO_MESSAGES.blank);
  if (Array.from(clean).length > TITLE_MAX) {
    throw BadInput.field('title', TODO_MESSAGES.tooLong);
  }
  return clean;
}
