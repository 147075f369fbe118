import { NotFound } from '@agora/core';
import { isRowId } from '@agora/db';
import { QueryTypes, type Sequelize } from 'sequelize';
import { pageRows, pageSql, type Page, type PageRequest } from '../../http/link-pagination.js';
import { visibleTo } from '../statuses/status.model.js';

const RECORD_NOT_FOUND = 'Record not found';

/** One conversation as its account sees it (DTO); hydration of accounts and status is the route's. */
export interface ConversationRow {
  id: string;
  unread: boolean;
  /** The other participants (the account itself when it wrote only to itself). */
  participantIds: string[];
  /** The latest direct status of the conversation the account may still see; null when none is left. */
  lastStatusId: string | null;
  cursor: string;
}

const SELECT_ROWS = `SELECT c.id::text AS id, c.unread, c.participant_account_ids::text[] AS "participantIds",
         c.last_status_id::text AS cursor, c.account_id::text AS "accountId",
         (SELECT s.id::text FROM statuses s
           WHERE s.conversation_id = c.conversation_id AND s.visibility = 'direct' AND s.deleted_at IS NULL
             AND ${visibleTo('c.account_id')}
           ORDER BY s.id DESC LIMIT 1) AS "lastStatusId"
    FROM account_conversations c`;

/**
 * Direct conversations (GET /api/v1/conversations): written by the statuses fan-out for every
 * direct status (`fanOut`, registered as a feed writer), read, marked read and removed by their
 * account. A removed conversation comes back with its next status, as the reference's.
 */
export class ConversationService {
  constructor(private readonly deps: { sequelize: Sequelize }) {}

  /** The account's conversations, latest status first, paged by it. */
  async list(accountId: string, page: PageRequest): Promise<Page<ConversationRow>> {
    const bind: unknown[] = [accountId];
    const sql = pageSql('c.last_status_id', page, bind);
    const rows = await this.deps.sequelize.query<ConversationRow & { accountId: string }>(
      `${SELECT_ROWS} WHERE c.account_id = $1${sql.where}${sql.tail}`,
      { bind, type: QueryTypes.SELECT },
    );
    return pageRows(rows.map(withSelf), page);
  }

  /** POST /api/v1/conversations/:id/read. Errors: NotFound (unknown, another account's). */
  async markRead(accountId: string, id: string): Promise<ConversationRow> {
    const own = await this.own(accountId, id);
    await this.deps.sequelize.query(
      'UPDATE account_conversations SET unread = false, updated_at = now() WHERE id = $1',
      {
        bind: [own.id],
      },
    );
    return { ...own, unread: false };
  }

  /** DELETE /api/v1/conversations/:id: out of the account's list (statuses stay). Errors: NotFound. */
  async remove(accountId: string, id: string): Promise<void> {
    const own = await this.own(accountId, id);
    await this.deps.sequelize.query('DELETE FROM account_conversations WHERE id = $1', { bind: [own.id] });
  }

  /**
   * The fan-out's conversations part: a direct status updates the conversation of its author and
   * of each local account it mentions (unread for all but the author). Idempotent.
   */
  async fanOut(statusId: string): Promise<number> {
    const rows = await this.deps.sequelize.query(
      `WITH s AS (
         SELECT id, account_id, conversation_id FROM statuses
          WHERE id = $1 AND visibility = 'direct' AND deleted_at IS NULL AND reblog_of_id IS NULL
            AND conversation_id IS NOT NULL),
       people AS (
         SELECT s.account_id AS id FROM s
          UNION SELECT m.account_id FROM mentions m JOIN s ON m.status_id = s.id)
       INSERT INTO account_conversations (account_id, conversation_id, participant_account_ids, last_status_id, unread)
       SELECT p.id, s.conversation_id, ARRAY(SELECT o.id FROM people o WHERE o.id <> p.id ORDER BY o.id),
              s.id, p.id <> s.account_id
         FROM people p JOIN actors a ON a.id = p.id AND a.domain IS NULL CROSS JOIN s
       ON CONFLICT (account_id, conversation_id) DO UPDATE SET
         participant_account_ids = ARRAY(
           SELECT DISTINCT x FROM unnest(account_conversations.participant_account_ids
                                         || EXCLUDED.participant_account_ids) AS x ORDER BY x),
         unread = CASE WHEN EXCLUDED.last_status_id > account_conversations.last_status_id
                       THEN EXCLUDED.unread ELSE account_conversations.unread END,
         last_status_id = greatest(account_conversations.last_status_id, EXCLUDED.last_status_id),
         updated_at = now()
       RETURNING 1`,
      { bind: [statusId], type: QueryTypes.SELECT },
    );
    return rows.length;
  }

  /** The conversations a status belongs to, of those of `accountIds` that have one (streaming). */
  async ofStatus(
    statusId: string,
    accountIds: readonly string[],
  ): Promise<Array<{ accountId: string; row: ConversationRow }>> {
    if (accountIds.length === 0) return [];
    const rows = await this.deps.sequelize.query<ConversationRow & { accountId: string }>(
      `${SELECT_ROWS} WHERE c.account_id = ANY($2::bigint[])
          AND c.conversation_id = (SELECT conversation_id FROM statuses WHERE id = $1)`,
      { bind: [statusId, accountIds], type: QueryTypes.SELECT },
    );
    return rows.map((row) => ({ accountId: row.accountId, row: withSelf(row) }));
  }

  private async own(accountId: string, id: string): Promise<ConversationRow> {
    if (!isRowId(id)) throw new NotFound(RECORD_NOT_FOUND);
    const [row] = await this.deps.sequelize.query<ConversationRow & { accountId: string }>(
      `${SELECT_ROWS} WHERE c.id = $1 AND c.account_id = $2`,
      { bind: [id, accountId], type: QueryTypes.SELECT },
    );
    if (!row) throw new NotFound(RECORD_NOT_FOUND);
    return withSelf(row);
  }
}

/** Writing only to oneself, the account is its conversation's participant (as the reference shows it). */
function withSelf({ accountId, ...row }: ConversationRow & { accountId: string }): ConversationRow {
  return row.participantIds.length === 0 ? { ...row, participantIds: [accountId] } : row;
}
