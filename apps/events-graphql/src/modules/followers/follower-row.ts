import type { EventRow } from '../events/event-row.js';

/** A follow as stored (federation's `follows`): what resolvers hand to the GraphQL `Follower`. */
export interface FollowerRow {
  id: string;
  actorId: string;
  targetActorId: string;
  approved: boolean;
  notify: boolean;
  insertedAt: Date;
  updatedAt: Date;
}

/** The columns of `follows` (alias `f`) under the names of FollowerRow. */
export const FOLLOWER_COLUMNS = `f.id::text AS "id", f.actor_id::text AS "actorId",
  f.target_actor_id::text AS "targetActorId", f.accepted_at IS NOT NULL AS "approved", f.notify,
  f.created_at AS "insertedAt", f.updated_at AS "updatedAt"`;

/** An event of a followed group, with who follows it: what resolvers hand to `FollowedGroupEvent`. */
export interface FollowedGroupEventRow {
  event: EventRow;
  groupId: string;
  profileId: string;
  userId: string;
}
