/** A comment as stored: what resolvers hand to the GraphQL `Comment` (its codegen mapper). */
export interface CommentRow {
  id: string;
  uuid: string;
  url: string;
  local: boolean;
  /** Sanitized HTML; null once deleted (a tombstone). */
  text: string | null;
  /** The author's profile; null once deleted. */
  actorId: string | null;
  /** The group a comment belongs to (null until group comments land). */
  attributedToId: string | null;
  eventId: string | null;
  inReplyToCommentId: string | null;
  /** The first comment of the thread; null for a first comment. */
  originCommentId: string | null;
  visibility: CommentVisibility;
  isAnnouncement: boolean;
  language: string;
  /** Kept by a trigger: a first comment's whole thread, a reply's direct replies. */
  totalReplies: number;
  deletedAt: Date | null;
  publishedAt: Date;
  insertedAt: Date;
  updatedAt: Date;
}

export type CommentVisibility = 'PUBLIC' | 'UNLISTED' | 'PRIVATE' | 'MODERATED' | 'INVITE';

/** The columns of `comments` (alias `c`) under the names of CommentRow. */
export const COMMENT_COLUMNS = `c.id::text AS "id", c.uuid::text AS "uuid", c.url, c.local, c.text,
  c.actor_id::text AS "actorId", c.attributed_to_id::text AS "attributedToId", c.event_id::text AS "eventId",
  c.in_reply_to_comment_id::text AS "inReplyToCommentId", c.origin_comment_id::text AS "originCommentId",
  c.visibility, c.is_announcement AS "isAnnouncement", c.language, c.total_replies AS "totalReplies",
  c.deleted_at AS "deletedAt", c.published_at AS "publishedAt", c.inserted_at AS "insertedAt",
  c.updated_at AS "updatedAt"`;

/** Visibilities shown in an event's threads (the reference's public ones). */
export const LISTED_VISIBILITIES = `('PUBLIC', 'UNLISTED')`;
