import type { SessionUser } from '@agora/auth';
import type { UserRecord, UserSettings } from './user.service.js';

/**
 * What resolvers hand to the GraphQL `User` type: a stored user, whole, or the session projection the
 * request's guards loaded (`ctx.viewer()`). The `User` resolvers load the rest only when asked for it.
 */
export type UserParent = SessionUser | UserRecord;

/** Whether `user` carries the sign-in history and token timestamps (a whole record). */
export function isWholeUser(user: UserParent): user is UserRecord {
  return 'lastSignInAt' in user;
}

/** What resolvers hand to the GraphQL `UserSettings`: the stored preferences (or the defaults). */
export type UserSettingsParent = UserSettings;
