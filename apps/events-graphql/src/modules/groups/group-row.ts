/** `GroupVisibility` and `Openness` as stored. */
export type GroupVisibility = 'PUBLIC' | 'UNLISTED' | 'PRIVATE';
export type GroupOpenness = 'INVITE_ONLY' | 'MODERATED' | 'OPEN';

/** What the events service keeps about a group actor (table `group_details`). */
export interface GroupDetails {
  actorId: string;
  visibility: GroupVisibility;
  openness: GroupOpenness;
  physicalAddressId: string | null;
  /** Members, moderators and administrators, kept by a trigger on `members` (ADR 0005). */
  membersCount: number;
}

/** The columns of `group_details` (alias `g`) under the names of GroupDetails. */
export const GROUP_DETAILS_COLUMNS = `g.actor_id::text AS "actorId", g.visibility, g.openness,
  g.physical_address_id::text AS "physicalAddressId", g.members_count AS "membersCount"`;

/** A group without a details row (a remote group known only by its actor document). */
export function defaultDetails(actorId: string): GroupDetails {
  return { actorId, visibility: 'PUBLIC', openness: 'MODERATED', physicalAddressId: null, membersCount: 0 };
}
