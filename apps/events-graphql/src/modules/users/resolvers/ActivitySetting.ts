import type { ActivitySettingResolvers } from '../../../graphql/resolvers-types.generated.js';
import { ownerUser } from './owner.js';

// key, method and enabled are read as stored.
export const ActivitySetting: ActivitySettingResolvers = {
  user: (setting, _args, ctx) => ownerUser(setting.userId, ctx),
};
