/** Who may see a status (Mastodon's four visibilities). */
export const VISIBILITIES = ['public', 'unlisted', 'private', 'direct'] as const;
export type Visibility = (typeof VISIBILITIES)[number];

/** One row of `statuses` (migrations/20261127100000-statuses.ts), ids as strings. */
export interface StatusRow {
  id: string;
  uri: string | null;
  url: string | null;
  accountId: string;
  local: boolean;
  text: string;
  content: string;
  spoilerText: string;
  sensitive: boolean;
  visibility: Visibility;
  language: string | null;
  inReplyToId: string | null;
  inReplyToAccountId: string | null;
  reblogOfId: string | null;
  conversationId: string | null;
  applicationId: string | null;
  repliesCount: number;
  reblogsCount: number;
  favouritesCount: number;
  editedAt: Date | null;
  deletedAt: Date | null;
  createdAt: Date;
}

/** The columns of `statuses` (alias `s`) under their StatusRow names; bigints as text. */
export const STATUS_COLUMNS = `s.id::text AS id, s.uri, s.url, s.account_id::text AS "accountId", s.local, s.text,
  s.content, s.spoiler_text AS "spoilerText", s.sensitive, s.visibility, s.language,
  s.in_reply_to_id::text AS "inReplyToId", s.in_reply_to_account_id::text AS "inReplyToAccountId",
  s.reblog_of_id::text AS "reblogOfId", s.conversation_id::text AS "conversationId",
  s.application_id::text AS "applicationId", s.replies_count AS "repliesCount",
  s.reblogs_count AS "reblogsCount", s.favourites_count AS "favouritesCount", s.edited_at AS "editedAt",
  s.deleted_at AS "deletedAt", s.created_at AS "createdAt"`;

/**
 * SQL that is true when the account `$viewer` (a bigint parameter, NULL for anonymous callers) may
 * see the status `s`: public and unlisted to everyone, private to the author's accepted followers,
 * and every visibility to its author and the accounts it mentions.
 */
export function visibleTo(viewer: string): string {
  return `(s.visibility IN ('public', 'unlisted')
    OR s.account_id = ${viewer}
    OR (s.visibility = 'private' AND EXISTS (
          SELECT 1 FROM follows f
           WHERE f.actor_id = ${viewer} AND f.target_actor_id = s.account_id AND f.accepted_at IS NOT NULL))
    OR EXISTS (SELECT 1 FROM mentions m WHERE m.status_id = s.id AND m.account_id = ${viewer}))`;
}
