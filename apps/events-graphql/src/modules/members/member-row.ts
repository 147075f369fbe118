/** `MemberRoleEnum` as stored (spec not-shown.md §1). */
export const MEMBER_ROLES = [
  'NOT_APPROVED',
  'INVITED',
  'MEMBER',
  'MODERATOR',
  'ADMINISTRATOR',
  'CREATOR',
  'REJECTED',
] as const;
export type MemberRole = (typeof MEMBER_ROLES)[number];

/** §2.2: member? — NOT_APPROVED, INVITED and REJECTED are not members. */
export const MEMBER_OF_GROUP: readonly MemberRole[] = ['MEMBER', 'MODERATOR', 'ADMINISTRATOR', 'CREATOR'];
/** §2.2: moderator? */
export const GROUP_MODERATOR: readonly MemberRole[] = ['MODERATOR', 'ADMINISTRATOR', 'CREATOR'];
/** §2.2: administrator? */
export const GROUP_ADMINISTRATOR: readonly MemberRole[] = ['ADMINISTRATOR', 'CREATOR'];

export const isMemberRole = (role: MemberRole | null | undefined): boolean =>
  role != null && MEMBER_OF_GROUP.includes(role);
export const isModeratorRole = (role: MemberRole | null | undefined): boolean =>
  role != null && GROUP_MODERATOR.includes(role);
export const isAdministratorRole = (role: MemberRole | null | undefined): boolean =>
  role != null && GROUP_ADMINISTRATOR.includes(role);

/** A membership as stored (table `members`): what resolvers hand to the GraphQL `Member`. */
export interface MemberRow {
  id: string;
  uuid: string;
  url: string;
  /** The group's actor id. */
  parentId: string;
  /** The member's (a profile's) actor id. */
  actorId: string;
  role: MemberRole;
  invitedById: string | null;
  insertedAt: Date;
  updatedAt: Date;
}

/** The columns of `members` (alias `m`) under the names of MemberRow. */
export const MEMBER_COLUMNS = `m.id::text AS "id", m.uuid::text AS "uuid", m.url, m.parent_id::text AS "parentId",
  m.actor_id::text AS "actorId", m.role, m.invited_by_id::text AS "invitedById",
  m.inserted_at AS "insertedAt", m.updated_at AS "updatedAt"`;
