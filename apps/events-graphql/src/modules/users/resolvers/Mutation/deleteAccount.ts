import type { RootMutationTypeResolvers } from '../../../../graphql/resolvers-types.generated.js';
import { requireRole, requireUser } from '../../guards.js';

export const deleteAccount: RootMutationTypeResolvers['deleteAccount'] = async (_parent, args, ctx) => {
  const user = await requireUser(ctx);
  // Someone else's account: instance moderators may, without a password (as the reference).
  if (args.userId != null && args.userId !== user.id) {
    await requireRole(ctx, 'MODERATOR');
    return ctx.app.users.deleteUser(args.userId);
  }
  return ctx.app.users.deleteAccount(user, args.password ?? '');
};
