/** `PostVisibility` (spec not-shown.md §1). */
export type PostVisibility = 'PUBLIC' | 'UNLISTED' | 'PRIVATE';

/** A group post as stored (table `posts`): what resolvers hand to the GraphQL `Post` (its codegen mapper). */
export interface PostRow {
  /** A UUID, as the reference's post ids. */
  id: string;
  slug: string;
  url: string;
  title: string;
  /** Sanitized HTML. */
  body: string;
  draft: boolean;
  local: boolean;
  visibility: PostVisibility;
  language: string;
  /** When it was (or is to be) published; null for drafts. */
  publishAt: Date | null;
  /** The member who wrote it; null once that profile is deleted. */
  authorId: string | null;
  /** The group it belongs to. */
  attributedToId: string;
  pictureId: string | null;
  insertedAt: Date;
  updatedAt: Date;
}

/** The columns of `posts` (alias `p`) under the names of PostRow. */
export const POST_COLUMNS = `p.id::text AS "id", p.slug, p.url, p.title, p.body, p.draft, p.local, p.visibility,
  p.language, p.publish_at AS "publishAt", p.author_id::text AS "authorId",
  p.attributed_to_id::text AS "attributedToId", p.picture_id::text AS "pictureId",
  p.inserted_at AS "insertedAt", p.updated_at AS "updatedAt"`;
