import DataLoader from 'dataloader';
import type { AppContext } from '../../context.js';
import type { UserRecord } from './user.service.js';
import { UserRecordsView } from './views/user-records.view.js';

/** Batches of one operation: the whole records behind `User` fields the session projection lacks. */
export interface UserLoaders {
  records: DataLoader<string, UserRecord | null>;
}

/** Built on first use by the request context (`ctx.loaders.users`). */
export function createUserLoaders(app: AppContext): UserLoaders {
  const view = new UserRecordsView(app);
  return {
    records: new DataLoader(async (userIds) => {
      const byId = await view.byIds(userIds);
      return userIds.map((id) => byId.get(id) ?? null);
    }),
  };
}
