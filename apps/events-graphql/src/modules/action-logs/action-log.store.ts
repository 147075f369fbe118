import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';

/** What a moderation action did, as the reference records it. */
export type ActionLogVerb = 'create' | 'update' | 'delete';

/** The kinds of objects an entry names (the reference's ActionLogObject implementations). */
export type ActionLogTargetType = 'Comment' | 'Event' | 'Person' | 'Report' | 'ReportNote' | 'User' | 'Group';

export interface ActionLogEntry {
  /** The acting profile (a moderator's, or an organizer's); null once that profile is deleted. */
  actorId: string | null;
  action: ActionLogVerb;
  targetType: ActionLogTargetType;
  targetId: string;
  /** The object as it was before the action, so a moderator can see what was removed. */
  changes: Record<string, unknown>;
}

export interface ActionLogRow extends ActionLogEntry {
  id: string;
  insertedAt: Date;
}

/** The GraphQL `ActionLogAction` of an entry, for the moderation issue's `actionLogs` query. */
export function actionLogAction(entry: Pick<ActionLogEntry, 'action' | 'targetType'>): string | null {
  if (entry.action === 'delete' && entry.targetType === 'Comment') return 'COMMENT_DELETION';
  if (entry.action === 'delete' && entry.targetType === 'Event') return 'EVENT_DELETION';
  if (entry.action === 'update' && entry.targetType === 'Event') return 'EVENT_UPDATE';
  return null;
}

const COLUMNS = `id::text AS "id", actor_id::text AS "actorId", action, target_type AS "targetType",
  target_id::text AS "targetId", changes, inserted_at AS "insertedAt"`;

/** The `action_logs` table: moderation actions, written in the transaction of the action they record. */
export class ActionLogStore {
  constructor(private readonly sequelize: Sequelize) {}

  /** Records one action; pass the action's transaction so the entry exists exactly when the action does. */
  async record(entry: ActionLogEntry, transaction?: Transaction): Promise<ActionLogRow> {
    const [row] = await this.sequelize.query<ActionLogRow>(
      `INSERT INTO action_logs (actor_id, action, target_type, target_id, changes)
       VALUES (:actorId, :action, :targetType, :targetId, :changes)
       RETURNING ${COLUMNS}`,
      {
        type: QueryTypes.SELECT,
        transaction,
        replacements: { ...entry, changes: JSON.stringify(entry.changes) },
      },
    );
    return row!;
  }

  /** A page of the log, newest first, and the number of entries. */
  async list(page: number, limit: number): Promise<{ elements: ActionLogRow[]; total: number }> {
    const size = Math.max(limit, 0);
    const [elements, [count]] = await Promise.all([
      this.sequelize.query<ActionLogRow>(
        `SELECT ${COLUMNS} FROM action_logs ORDER BY id DESC LIMIT :limit OFFSET :offset`,
        { type: QueryTypes.SELECT, replacements: { limit: size, offset: Math.max(page - 1, 0) * size } },
      ),
      this.sequelize.query<{ total: number }>('SELECT count(*)::int AS total FROM action_logs', {
        type: QueryTypes.SELECT,
      }),
    ]);
    return { elements, total: count!.total };
  }
}
