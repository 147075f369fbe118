/** The kinds of `ActivityType` (spec not-shown.md §1). */
export type ActivityKind = 'EVENT' | 'POST' | 'DISCUSSION' | 'RESOURCE' | 'GROUP' | 'MEMBER';

/** What an activity's `object` is, as stored in `object_type` (null once the object is gone). */
export type ActivityObjectType =
  'event' | 'post' | 'discussion' | 'resource' | 'group' | 'member' | 'comment';

/** A recorded action in a group (table `activities`): what resolvers hand to the GraphQL `Activity`. */
export interface ActivityRow {
  id: string;
  type: ActivityKind;
  /** The reference's subject names: `member_joined`, `post_created`, `discussion_renamed`… */
  subject: string;
  /** Values the client words the subject with (`member_actor_name`, `post_title`…). */
  subjectParams: Record<string, string>;
  groupId: string;
  /** The profile that acted; null once it is deleted. */
  authorId: string | null;
  objectType: ActivityObjectType | null;
  objectId: string | null;
  insertedAt: Date;
}

/** The columns of `activities` (alias `a`) under the names of ActivityRow. */
export const ACTIVITY_COLUMNS = `a.id::text AS "id", a.type, a.subject, a.subject_params AS "subjectParams",
  a.group_id::text AS "groupId", a.author_id::text AS "authorId", a.object_type AS "objectType",
  a.object_id AS "objectId", a.inserted_at AS "insertedAt"`;
