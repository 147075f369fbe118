/** How the viewer and one account stand (Mastodon's Relationship, before serialization). */
export interface Relationship {
  /** The other account's id. */
  id: string;
  following: boolean;
  showingReblogs: boolean;
  notifying: boolean;
  /** The languages the viewer follows them in; null: all (or not following). */
  languages: string[] | null;
  followedBy: boolean;
  blocking: boolean;
  blockedBy: boolean;
  muting: boolean;
  mutingNotifications: boolean;
  mutingExpiresAt: Date | null;
  requested: boolean;
  requestedBy: boolean;
  domainBlocking: boolean;
  endorsed: boolean;
  note: string;
}

/** What a follower may choose (`POST /api/v1/accounts/:id/follow`); omitted: unchanged/default. */
export interface FollowChoices {
  reblogs?: boolean;
  notify?: boolean;
  languages?: string[] | null;
}

/** `POST /api/v1/accounts/:id/mute`: hide their notifications too (default), for `duration` seconds (0: forever). */
export interface MuteChoices {
  notifications: boolean;
  duration: number;
}
