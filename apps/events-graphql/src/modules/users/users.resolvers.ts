import { GraphQLScalarType, Kind } from 'graphql';
import { BadInput } from '@agora/core';
import type { Resolvers } from '../../graphql/resolvers-types.generated.js';
import type { GraphQLContext } from '../../graphql/context.js';
import { requireRole, requireUser } from './guards.js';
import { isWholeUser, type UserParent } from './user-parent.js';
import type { UserRecord } from './user.service.js';

// The whole records loaded for User fields the session projection lacks, per operation and user.
const wholeRecords = new WeakMap<GraphQLContext, Map<string, Promise<UserRecord | null>>>();

function wholeRecord(ctx: GraphQLContext, user: UserParent): Promise<UserRecord | null> {
  if (isWholeUser(user)) return Promise.resolve(user);
  let byId = wholeRecords.get(ctx);
  if (!byId) wholeRecords.set(ctx, (byId = new Map()));
  let record = byId.get(user.id);
  if (!record) byId.set(user.id, (record = ctx.app.users.findById(user.id)));
  return record;
}

/** A `User` field of the sign-in history: from the record when whole, else one lookup per operation. */
const historyField =
  <
    K extends
      | 'confirmationSentAt'
      | 'resetPasswordSentAt'
      | 'lastSignInAt'
      | 'lastSignInIp'
      | 'currentSignInAt'
      | 'currentSignInIp',
  >(
    key: K,
  ) =>
  async (user: UserParent, _args: unknown, ctx: GraphQLContext): Promise<UserRecord[K] | null> =>
    (await wholeRecord(ctx, user))?.[key] ?? null;

const caller = (ctx: GraphQLContext) => ({ ip: ctx.ip });

/** Seconds precision, `Z` suffix: the reference's DateTime. */
const DateTime = new GraphQLScalarType({
  name: 'DateTime',
  serialize(value) {
    const date = value instanceof Date ? value : new Date(String(value));
    if (Number.isNaN(date.getTime())) throw new TypeError('DateTime cannot represent an invalid date');
    return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
  },
  parseValue(value) {
    const date = typeof value === 'string' ? new Date(value) : new Date(NaN);
    if (Number.isNaN(date.getTime())) throw new TypeError('DateTime must be an ISO 8601 string');
    return date;
  },
  parseLiteral(ast) {
    const date = ast.kind === Kind.STRING ? new Date(ast.value) : new Date(NaN);
    if (Number.isNaN(date.getTime())) throw new TypeError('DateTime must be an ISO 8601 string');
    return date;
  },
});

export const usersResolvers: Resolvers = {
  DateTime,
  ActionLogObject: {
    // Users are the only implementation so far; the others come with their modules.
    __resolveType: () => 'User',
  },
  // id, email, role, locale, confirmedAt, provider and disabled are read as they are stored.
  User: {
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
      if (viewer.id !== user.id && !(await ctx.app.users.canModerate(viewer))) return null;
      return ctx.app.users.settings(user.id!);
    },
  },
  RootQueryType: {
    loggedUser: (_parent, _args, ctx) => requireUser(ctx),
    user: async (_parent, { id }, ctx) => {
      await requireRole(ctx, 'MODERATOR');
      return ctx.app.users.get(id);
    },
    users: async (_parent, args, ctx) => {
      await requireRole(ctx, 'MODERATOR');
      const { elements, total } = await ctx.app.users.list({
        email: args.email ?? '',
        currentSignInIp: args.currentSignInIp ?? undefined,
        direction: args.direction ?? 'DESC',
        page: args.page ?? 1,
        limit: args.limit ?? 10,
      });
      return { elements, total };
    },
  },
  RootMutationType: {
    createUser: (_parent, { email, password, locale }, ctx) =>
      ctx.app.users.register({ email, password, locale: locale ?? ctx.locale }, caller(ctx)),
    validateUser: async (_parent, { token }, ctx) => {
      const login = await ctx.app.users.validateUser(token, caller(ctx));
      return login;
    },
    resendConfirmationEmail: (_parent, { email, locale }, ctx) =>
      ctx.app.users.resendConfirmation(email, locale ?? ctx.locale, caller(ctx)),
    sendResetPassword: (_parent, { email, locale }, ctx) =>
      ctx.app.users.sendResetPassword(email, locale ?? ctx.locale, caller(ctx)),
    resetPassword: async (_parent, { token, password }, ctx) => {
      const login = await ctx.app.users.resetPassword(token, password, caller(ctx));
      return login;
    },
    login: async (_parent, { email, password }, ctx) => {
      const login = await ctx.app.users.login(email, password, caller(ctx));
      return login;
    },
    refreshToken: (_parent, { refreshToken }, ctx) => ctx.app.users.refresh(refreshToken),
    logout: async (_parent, { refreshToken }, ctx) => {
      const user = await requireUser(ctx);
      return ctx.app.users.logout(user, refreshToken);
    },
    changePassword: async (_parent, { oldPassword, newPassword }, ctx) => {
      const user = await requireUser(ctx);
      return await ctx.app.users.changePassword(user, oldPassword, newPassword, ctx.sessionId);
    },
    changeEmail: async (_parent, { email, password }, ctx) => {
      const user = await requireUser(ctx);
      return await ctx.app.users.changeEmail(user, email, password, ctx.locale);
    },
    validateEmail: async (_parent, { token }, ctx) => await ctx.app.users.validateEmail(token),
    updateLocale: async (_parent, { locale }, ctx) => {
      const user = await requireUser(ctx);
      if (!locale)
        throw new BadInput('Invalid arguments passed', { code: 'invalid_argument', malformed: true });
      return await ctx.app.users.updateLocale(user, locale);
    },
    deleteAccount: async (_parent, { password, userId }, ctx) => {
      const user = await requireUser(ctx);
      // Someone else's account: instance moderators may, without a password (as the reference).
      if (userId != null && userId !== user.id) {
        await requireRole(ctx, 'MODERATOR');
        return ctx.app.users.deleteUser(userId);
      }
      return ctx.app.users.deleteAccount(user, password ?? '');
    },
    setUserSettings: async (_parent, args, ctx) => {
      const user = await requireUser(ctx);
      return ctx.app.users.setSettings(user, args);
    },
    adminUpdateUser: async (_parent, { id, email, role, confirmed, notify }, ctx) => {
      const admin = await requireRole(ctx, 'ADMINISTRATOR');
      const user = await ctx.app.users.adminUpdate(admin, id, {
        email: email ?? undefined,
        role: role ?? undefined,
        confirmed: confirmed ?? undefined,
        notify: notify ?? false,
      });
      return user;
    },
  },
};
