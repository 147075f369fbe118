import type { Relationship } from '../modules/relationships/relationship.types.js';

/** Mastodon's Relationship entity: every attribute present. */
export interface RelationshipJson {
  id: string;
  following: boolean;
  showing_reblogs: boolean;
  notifying: boolean;
  languages: string[] | null;
  followed_by: boolean;
  blocking: boolean;
  blocked_by: boolean;
  muting: boolean;
  muting_notifications: boolean;
  muting_expires_at: string | null;
  requested: boolean;
  requested_by: boolean;
  domain_blocking: boolean;
  endorsed: boolean;
  note: string;
}

export function serializeRelationship(relationship: Relationship): RelationshipJson {
  return {
    id: relationship.id,
    following: relationship.following,
    showing_reblogs: relationship.showingReblogs,
    notifying: relationship.notifying,
    languages: relationship.languages,
    followed_by: relationship.followedBy,
    blocking: relationship.blocking,
    blocked_by: relationship.blockedBy,
    muting: relationship.muting,
    muting_notifications: relationship.mutingNotifications,
    muting_expires_at: relationship.mutingExpiresAt?.toISOString() ?? null,
    requested: relationship.requested,
    requested_by: relationship.requestedBy,
    domain_blocking: relationship.domainBlocking,
    endorsed: relationship.endorsed,
    note: relationship.note,
  };
}
