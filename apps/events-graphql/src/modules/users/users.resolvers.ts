import { GraphQLScalarType, Kind } from 'graphql';
import { BadInput } from '@agora/core';
import type { Resolvers, User } from '../../graphql/resolvers-types.generated.js';
import type { GraphQLContext } from '../../graphql/context.js';
import { requireRole, requireUser } from './guards.js';
import type { UserRecord } from './user.service.js';

/** The one place a stored user becomes the GraphQL `User` (tokens are never exposed). */
export function toUser(user: UserRecord): User {
  return {
    id: String(user.id),
    email: user.email,
    role: user.role,
    locale: user.locale,
    confirmedAt: user.confirmedAt,
    confirmationSentAt: user.confirmationSentAt,
    confirmationToken: null,
    resetPasswordSentAt: user.resetPasswordSentAt,
    resetPasswordToken: null,
    provider: user.provider,
    disabled: user.disabled,
    lastSignInAt: user.lastSignInAt,
    lastSignInIp: user.lastSignInIp,
    currentSignInAt: user.currentSignInAt,
    currentSignInIp: user.currentSignInIp,
    // Resolved by User.settings, which checks who is asking.
    settings: null,
    // Resolved by the persons module's User.actors and User.defaultActor (batched).
    actors: [],
    defaultActor: null,
    // Resolved by the media module's User.media and User.mediaSize (owner or moderator).
    media: null,
    mediaSize: null,
  };
}

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
  User: {
    settings: async (user, _args, ctx) => {
      const viewer = await requireUser(ctx);
      if (viewer.id !== user.id && !(await ctx.app.users.canModerate(viewer))) return null;
      return ctx.app.users.settings(user.id!);
    },
  },
  RootQueryType: {
    loggedUser: async (_parent, _args, ctx) => toUser(await requireUser(ctx)),
    user: async (_parent, { id }, ctx) => {
      await requireRole(ctx, 'MODERATOR');
      return toUser(await ctx.app.users.get(id));
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
      return { elements: elements.map(toUser), total };
    },
  },
  RootMutationType: {
    createUser: async (_parent, { email, password, locale }, ctx) =>
      toUser(await ctx.app.users.register({ email, password, locale: locale ?? ctx.locale }, caller(ctx))),
    validateUser: async (_parent, { token }, ctx) => {
      const login = await ctx.app.users.validateUser(token, caller(ctx));
      return { ...login, user: toUser(login.user) };
    },
    resendConfirmationEmail: (_parent, { email, locale }, ctx) =>
      ctx.app.users.resendConfirmation(email, locale ?? ctx.locale, caller(ctx)),
    sendResetPassword: (_parent, { email, locale }, ctx) =>
      ctx.app.users.sendResetPassword(email, locale ?? ctx.locale, caller(ctx)),
    resetPassword: async (_parent, { token, password }, ctx) => {
      const login = await ctx.app.users.resetPassword(token, password, caller(ctx));
      return { ...login, user: toUser(login.user) };
    },
    login: async (_parent, { email, password }, ctx) => {
      const login = await ctx.app.users.login(email, password, caller(ctx));
      return { ...login, user: toUser(login.user) };
    },
    refreshToken: (_parent, { refreshToken }, ctx) => ctx.app.users.refresh(refreshToken),
    logout: async (_parent, { refreshToken }, ctx) => {
      const user = await requireUser(ctx);
      return ctx.app.users.logout(user, refreshToken);
    },
    changePassword: async (_parent, { oldPassword, newPassword }, ctx) => {
      const user = await requireUser(ctx);
      return toUser(await ctx.app.users.changePassword(user, oldPassword, newPassword));
    },
    changeEmail: async (_parent, { email, password }, ctx) => {
      const user = await requireUser(ctx);
      return toUser(await ctx.app.users.changeEmail(user, email, password, ctx.locale));
    },
    validateEmail: async (_parent, { token }, ctx) => toUser(await ctx.app.users.validateEmail(token)),
    updateLocale: async (_parent, { locale }, ctx) => {
      const user = await requireUser(ctx);
      if (!locale)
        throw new BadInput('Invalid arguments passed', { code: 'invalid_argument', malformed: true });
      return toUser(await ctx.app.users.updateLocale(user, locale));
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
      return toUser(user);
    },
  },
};
