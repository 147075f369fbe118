import type { GraphQLContext } from '../../../graphql/context.js';
import type { UserResolvers } from '../../../graphql/resolvers-types.generated.js';
import { isSelfOrModerator, requireUser } from '../guards.js';
import { isWholeUser, type UserParent } from '../user-parent.js';
import type { UserRecord } from '../user.service.js';

type HistoryKey =
  | 'confirmationSentAt'
  | 'resetPasswordSentAt'
  | 'lastSignInAt'
  | 'lastSignInIp'
  | 'currentSignInAt'
  | 'currentSignInIp';

/** A `User` field of the sign-in history: from the record when whole, else from this operation's loader. */
const historyField =
  <K extends HistoryKey>(key: K) =>
  async (user: UserParent, _args: unknown, ctx: GraphQLContext): Promise<UserRecord[K] | null> => {
    const record = isWholeUser(user) ? user : await ctx.loaders.users.records.load(user.id);
    return record?.[key] ?? null;
  };

// id, email, role, locale, confirmedAt, provider and disabled are read as they are stored.
export const User: UserResolvers = {
  // Never exposed.
  confirmationToken: () => null,
  resetPasswordToken: () => null,
  confirmationSentAt: historyField('confirmationSentAt'),
  resetPasswordSentAt: historyField('resetPasswordSentAt'),
  lastSignInAt: historyField('lastSignInAt'),
  lastSignInIp: historyField('lastSignInIp'),
  currentSignInAt: historyField('currentSignInAt'),
  currentSignInIp: historyField('currentSignInIp'),
  settings: async (user, _args, ctx) => {
    const viewer = await requireUser(ctx);
    if (!isSelfOrModerator(ctx, viewer, user.id)) return null;
    return ctx.app.users.settings(user.id);
  },
  /** The user's activity notification settings (the user or an instance moderator). */
  activitySettings: async (user, _args, ctx) => {
    const viewer = await requireUser(ctx);
    if (!isSelfOrModerator(ctx, viewer, user.id)) return null;
    return ctx.loaders.users.activitySettings.load(user.id);
  },
  /** No OAuth application exists in this service yet, so the user has authorized none. */
  authAuthorizedApplications: async (user, _args, ctx) => {
    const viewer = await requireUser(ctx);
    if (!isSelfOrModerator(ctx, viewer, user.id)) return null;
    return [];
  },
  /** Feed tokens open private feeds: their user alone sees them. */
  feedTokens: async (user, _args, ctx) => {
    const viewer = await requireUser(ctx);
    if (viewer.id !== user.id) return null;
    return ctx.loaders.users.feedTokensOfUser.load(user.id);
  },
};
