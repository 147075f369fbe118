/**
 * A conversation as one participant sees it: the conversation joined with that participant's row
 * (the codegen mapper of `Conversation`, as the reference's ConversationView).
 */
export interface ConversationRow {
  /** The conversation's id. */
  id: string;
  /** The participant row's id (`conversationParticipantId`). */
  participantId: string;
  /** The participant: a profile, or the group organizing the event. */
  actorId: string;
  eventId: string | null;
  originCommentId: string | null;
  lastCommentId: string | null;
  unread: boolean;
  insertedAt: Date;
  updatedAt: Date;
}

/** The columns of `conversations` (alias `cv`) joined with `conversation_participants` (alias `cp`). */
export const CONVERSATION_COLUMNS = `cv.id::text AS "id", cp.id::text AS "participantId",
  cp.actor_id::text AS "actorId", cv.event_id::text AS "eventId",
  cv.origin_comment_id::text AS "originCommentId", cv.last_comment_id::text AS "lastCommentId",
  cp.unread, cv.inserted_at AS "insertedAt", cp.updated_at AS "updatedAt"`;

/** The roles of group members who act for the group in its conversations (moderator? of §2.2). */
export const GROUP_TEAM_ROLES = `('MODERATOR', 'ADMINISTRATOR', 'CREATOR')`;

/**
 * The actors user `:userId` acts as in conversations: its own profiles and the groups one of them
 * moderates (a SQL subquery).
 */
export const ACTABLE_ACTORS = `(
  SELECT a.id FROM actors a WHERE a.user_id = :userId AND a.type = 'Person' AND a.suspended_at IS NULL
  UNION
  SELECT m.parent_id FROM members m JOIN actors a ON a.id = m.actor_id
   WHERE a.user_id = :userId AND a.type = 'Person' AND a.suspended_at IS NULL AND m.role IN ${GROUP_TEAM_ROLES})`;
