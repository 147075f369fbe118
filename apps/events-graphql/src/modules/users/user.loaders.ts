import DataLoader from 'dataloader';
import type { AppContext } from '../../context.js';
import type { ActivitySettingRecord } from './activity-setting.service.js';
import type { FeedTokenRecord } from './feed-token.service.js';
import type { UserRecord } from './user.service.js';
import { AccountPreferencesView } from './views/account-preferences.view.js';
import { UserRecordsView } from './views/user-records.view.js';

/** Batches of one operation: the whole records behind `User` fields the session projection lacks. */
export interface UserLoaders {
  records: DataLoader<string, UserRecord | null>;
  /** Feed tokens by user id, and by profile id. */
  feedTokensOfUser: DataLoader<string, FeedTokenRecord[]>;
  feedTokensOfActor: DataLoader<string, FeedTokenRecord[]>;
  activitySettings: DataLoader<string, ActivitySettingRecord[]>;
}

/** Built on first use by the request context (`ctx.loaders.users`). */
export function createUserLoaders(app: AppContext): UserLoaders {
  const view = new UserRecordsView(app);
  const preferences = new AccountPreferencesView(app);
  const lists =
    <T>(read: (ids: readonly string[]) => Promise<Map<string, T[]>>) =>
    async (ids: readonly string[]) => {
      const byId = await read(ids);
      return ids.map((id) => byId.get(id) ?? []);
    };
  return {
    feedTokensOfUser: new DataLoader(lists((ids) => preferences.feedTokensOfUsers(ids))),
    feedTokensOfActor: new DataLoader(lists((ids) => preferences.feedTokensOfActors(ids))),
    activitySettings: new DataLoader(lists((ids) => preferences.activitySettingsOfUsers(ids))),
    records: new DataLoader(async (userIds) => {
      const byId = await view.byIds(userIds);
      return userIds.map((id) => byId.get(id) ?? null);
    }),
  };
}
