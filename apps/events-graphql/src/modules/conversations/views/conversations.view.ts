import { isRowId } from '@agora/db';
import { QueryTypes } from 'sequelize';
import type { AppContext } from '../../../context.js';
import { COMMENT_COLUMNS, type CommentRow } from '../../comments/comment-row.js';
import {
  ACTABLE_ACTORS,
  CONVERSATION_COLUMNS,
  GROUP_TEAM_ROLES,
  type ConversationRow,
} from '../conversation-row.js';

export interface ConversationPage {
  elements: ConversationRow[];
  total: number;
}

export interface CommentPage {
  elements: CommentRow[];
  total: number;
}

export interface PageArgs {
  page: number;
  limit: number;
}

function bounds({ page, limit }: PageArgs): { limit: number; offset: number } {
  const size = Math.max(0, limit);
  return { limit: size, offset: Math.max(0, page - 1) * size };
}

const FROM = `conversation_participants cp JOIN conversations cv ON cv.id = cp.conversation_id`;
const ORDER = 'cp.unread DESC, cp.updated_at DESC, cp.id DESC';

/** Conversation lists and their parts, each in one query whatever the page's size (the conversation loaders). */
export class ConversationsView {
  constructor(private readonly app: Pick<AppContext, 'sequelize'>) {}

  /** A profile's conversations and those of the groups it moderates (`Person.conversations`). */
  ofPerson(personId: string, page: PageArgs): Promise<ConversationPage> {
    return this.page(
      `cp.actor_id IN (SELECT :personId::bigint UNION
         SELECT m.parent_id FROM members m WHERE m.actor_id = :personId AND m.role IN ${GROUP_TEAM_ROLES})
       AND NOT cp.hidden`,
      { personId, ...bounds(page) },
    );
  }

  /** The conversations of all a user's profiles (`User.conversations`). */
  ofUser(userId: string, page: PageArgs): Promise<ConversationPage> {
    return this.page(
      `cp.actor_id IN (SELECT a.id FROM actors a WHERE a.user_id = :userId AND a.type = 'Person') AND NOT cp.hidden`,
      { userId, ...bounds(page) },
    );
  }

  /** An event's conversations as `organizerId` (its organizer or its group) sees them (`Event.conversations`). */
  ofEvent(eventId: string, organizerId: string, page: PageArgs): Promise<ConversationPage> {
    return this.page('cv.event_id = :eventId AND cp.actor_id = :organizerId AND NOT cp.hidden', {
      eventId,
      organizerId,
      ...bounds(page),
    });
  }

  /** Whether user `userId` acts as actor `actorId` (its profile or a group one of its profiles moderates). */
  async actsAs(userId: string, actorId: string): Promise<boolean> {
    if (!isRowId(actorId)) return false;
    const [row] = await this.app.sequelize.query<{ ok: boolean }>(
      `SELECT :actorId::bigint IN ${ACTABLE_ACTORS} AS ok`,
      { type: QueryTypes.SELECT, replacements: { actorId, userId } },
    );
    return row!.ok;
  }

  /** The participants of many conversations, in the order they joined (`Conversation.participants`). */
  async participantsOf(conversationIds: readonly string[]): Promise<Map<string, string[]>> {
    const rows = await this.app.sequelize.query<{ conversationId: string; actorId: string }>(
      `SELECT conversation_id::text AS "conversationId", actor_id::text AS "actorId"
         FROM conversation_participants WHERE conversation_id = ANY(ARRAY[:ids]::bigint[])
        ORDER BY conversation_id, id`,
      { type: QueryTypes.SELECT, replacements: { ids: rowIds(conversationIds) } },
    );
    const found = new Map<string, string[]>();
    for (const row of rows)
      found.set(row.conversationId, [...(found.get(row.conversationId) ?? []), row.actorId]);
    return found;
  }

  /**
   * Pages of many conversations' messages, oldest first (`Conversation.comments`): one query for the
   * pages, one for the totals, whatever their number; keys are `conversationId:page:limit`.
   */
  async commentPages(keys: readonly string[]): Promise<Map<string, CommentPage>> {
    const wanted = keys.flatMap((key) => {
      const [id, page, limit] = key.split(':');
      return isRowId(id!) ? [{ key, id: id!, ...bounds({ page: Number(page), limit: Number(limit) }) }] : [];
    });
    const found = new Map<string, CommentPage>(keys.map((key) => [key, { elements: [], total: 0 }]));
    if (wanted.length === 0) return found;
    const replacements = {
      keys: wanted.map((entry) => entry.key),
      ids: wanted.map((entry) => entry.id),
      limits: wanted.map((entry) => entry.limit),
      offsets: wanted.map((entry) => entry.offset),
    };
    const [rows, totals] = await Promise.all([
      this.app.sequelize.query<CommentRow & { pageKey: string }>(
        `SELECT w.key AS "pageKey", x.* FROM unnest(ARRAY[:keys]::text[], ARRAY[:ids]::bigint[],
             ARRAY[:limits]::int[], ARRAY[:offsets]::int[]) AS w(key, id, lim, off)
         CROSS JOIN LATERAL (SELECT ${COMMENT_COLUMNS} FROM comments c WHERE c.conversation_id = w.id
                              ORDER BY c.published_at, c.id LIMIT w.lim OFFSET w.off) x`,
        { type: QueryTypes.SELECT, replacements },
      ),
      this.app.sequelize.query<{ conversationId: string; total: number }>(
        `SELECT conversation_id::text AS "conversationId", count(*)::int AS total FROM comments
          WHERE conversation_id = ANY(ARRAY[:ids]::bigint[]) GROUP BY conversation_id`,
        { type: QueryTypes.SELECT, replacements },
      ),
    ]);
    const totalOf = new Map(totals.map((row) => [row.conversationId, row.total]));
    for (const entry of wanted) found.set(entry.key, { elements: [], total: totalOf.get(entry.id) ?? 0 });
    for (const { pageKey, ...comment } of rows) found.get(pageKey)!.elements.push(comment);
    return found;
  }

  /**
   * The conversations many comments are messages of, as user `userId` takes part in them (its first
   * participant row there), by comment id; comments of conversations it takes no part in are absent.
   */
  async ofComments(userId: string, commentIds: readonly string[]): Promise<Map<string, ConversationRow>> {
    const rows = await this.app.sequelize.query<ConversationRow & { commentId: string }>(
      `SELECT c.id::text AS "commentId", ${CONVERSATION_COLUMNS}
         FROM comments c JOIN conversations cv ON cv.id = c.conversation_id
         JOIN LATERAL (SELECT * FROM conversation_participants p
                        WHERE p.conversation_id = cv.id AND p.actor_id IN ${ACTABLE_ACTORS}
                        ORDER BY p.id LIMIT 1) cp ON true
        WHERE c.id = ANY(ARRAY[:ids]::bigint[])`,
      { type: QueryTypes.SELECT, replacements: { ids: rowIds(commentIds), userId } },
    );
    return new Map(rows.map(({ commentId, ...row }) => [commentId, row]));
  }

  /** Unread (not hidden) conversations of many profiles (`Person.unreadConversationsCount`). */
  async unreadCounts(actorIds: readonly string[]): Promise<Map<string, number>> {
    const rows = await this.app.sequelize.query<{ actorId: string; n: number }>(
      `SELECT actor_id::text AS "actorId", count(*)::int AS n FROM conversation_participants
        WHERE actor_id = ANY(ARRAY[:ids]::bigint[]) AND unread AND NOT hidden GROUP BY actor_id`,
      { type: QueryTypes.SELECT, replacements: { ids: rowIds(actorIds) } },
    );
    return new Map(rows.map((row) => [row.actorId, row.n]));
  }

  private async page(where: string, replacements: Record<string, unknown>): Promise<ConversationPage> {
    const [elements, [count]] = await Promise.all([
      this.app.sequelize.query<ConversationRow>(
        `SELECT ${CONVERSATION_COLUMNS} FROM ${FROM} WHERE ${where} ORDER BY ${ORDER} LIMIT :limit OFFSET :offset`,
        { type: QueryTypes.SELECT, replacements },
      ),
      this.app.sequelize.query<{ total: number }>(
        `SELECT count(*)::int AS total FROM ${FROM} WHERE ${where}`,
        {
          type: QueryTypes.SELECT,
          replacements,
        },
      ),
    ]);
    return { elements, total: count!.total };
  }
}

/** Ids that can be row ids ('0' keeps an empty array typed). */
function rowIds(ids: readonly string[]): string[] {
  const valid = ids.filter((id) => isRowId(id));
  return valid.length ? valid : ['0'];
}
