import { QueryTypes, type Sequelize } from 'sequelize';

/** A delivery that gave up: an unsalvageable answer, or every attempt failed. */
export interface DeadLetter {
  id: string;
  inboxUrl: string;
  activityId: string | null;
  senderActorId: string;
  /** The activity as it was sent. */
  body: unknown;
  /** The last HTTP status, null when there was none (timeout, refused, network). */
  lastStatus: number | null;
  lastError: string;
  attempts: number;
  failedAt: Date;
}

interface DeadLetterRow {
  id: string;
  inbox_url: string;
  activity_id: string | null;
  sender_actor_id: string;
  body: unknown;
  body_text: string;
  last_status: number | null;
  last_error: string;
  attempts: number;
  failed_at: Date;
}

export interface NewDeadLetter {
  inboxUrl: string;
  activityId: string | null;
  senderActorId: string;
  /** The serialized body (stored as jsonb). */
  body: string;
  lastStatus: number | null;
  lastError: string;
  attempts: number;
  failedAt: Date;
}

export class DeadLetterStore {
  constructor(private readonly sequelize: Sequelize) {}

  /** Returns false when the sender is gone (its dead letters went with it). */
  async add(letter: NewDeadLetter): Promise<boolean> {
    const rows = await this.sequelize.query<{ id: string }>(
      `INSERT INTO delivery_dead_letters
         (inbox_url, activity_id, sender_actor_id, body, last_status, last_error, attempts, failed_at)
       SELECT $1, $2, a.id, $4::jsonb, $5, $6, $7, $8 FROM actors a WHERE a.id = $3
       RETURNING id`,
      {
        bind: [
          letter.inboxUrl,
          letter.activityId,
          letter.senderActorId,
          letter.body,
          letter.lastStatus,
          letter.lastError.slice(0, 500),
          letter.attempts,
          letter.failedAt,
        ],
        type: QueryTypes.SELECT,
      },
    );
    return rows.length > 0;
  }

  async list(options: { limit?: number; offset?: number } = {}): Promise<DeadLetter[]> {
    const limit = Math.min(Math.max(options.limit ?? 50, 1), 500);
    const rows = await this.sequelize.query<DeadLetterRow>(
      `SELECT *, body::text AS body_text FROM delivery_dead_letters
        ORDER BY failed_at DESC, id DESC LIMIT $1 OFFSET $2`,
      { bind: [limit, Math.max(options.offset ?? 0, 0)], type: QueryTypes.SELECT },
    );
    return rows.map(toDeadLetter);
  }

  /** Removes and returns the letter (with its body serialized), or null when there is none. */
  async take(id: string): Promise<{ letter: DeadLetter; bodyText: string } | null> {
    if (!/^\d{1,18}$/.test(id)) return null;
    const rows = await this.sequelize.query<DeadLetterRow>(
      `DELETE FROM delivery_dead_letters WHERE id = $1 RETURNING *, body::text AS body_text`,
      { bind: [id], type: QueryTypes.SELECT },
    );
    const row = rows[0];
    return row ? { letter: toDeadLetter(row), bodyText: row.body_text } : null;
  }

  /** Puts a taken letter back, e.g. when enqueueing its replay failed. */
  async restore(letter: DeadLetter, bodyText: string): Promise<void> {
    await this.sequelize.query(
      `INSERT INTO delivery_dead_letters
         (id, inbox_url, activity_id, sender_actor_id, body, last_status, last_error, attempts, failed_at)
       VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7, $8, $9) ON CONFLICT DO NOTHING`,
      {
        bind: [
          letter.id,
          letter.inboxUrl,
          letter.activityId,
          letter.senderActorId,
          bodyText,
          letter.lastStatus,
          letter.lastError,
          letter.attempts,
          letter.failedAt,
        ],
        type: QueryTypes.INSERT,
      },
    );
  }
}

function toDeadLetter(row: DeadLetterRow): DeadLetter {
  return {
    id: String(row.id),
    inboxUrl: row.inbox_url,
    activityId: row.activity_id,
    senderActorId: String(row.sender_actor_id),
    body: row.body,
    lastStatus: row.last_status,
    lastError: row.last_error,
    attempts: row.attempts,
    failedAt: row.failed_at,
  };
}
