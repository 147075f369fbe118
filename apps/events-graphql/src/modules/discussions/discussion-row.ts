/** A discussion of a group (table `discussions`): what resolvers hand to the GraphQL `Discussion`. */
export interface DiscussionRow {
  id: string;
  slug: string;
  url: string;
  title: string;
  /** The group it belongs to. */
  actorId: string;
  /** The member who opened it; null once that profile is deleted. */
  creatorId: string | null;
  /** Its newest comment (what lists show). */
  lastCommentId: string | null;
  insertedAt: Date;
  updatedAt: Date;
}

/** The columns of `discussions` (alias `d`) under the names of DiscussionRow. */
export const DISCUSSION_COLUMNS = `d.id::text AS "id", d.slug, d.url, d.title, d.actor_id::text AS "actorId",
  d.creator_id::text AS "creatorId", d.last_comment_id::text AS "lastCommentId",
  d.inserted_at AS "insertedAt", d.updated_at AS "updatedAt"`;
