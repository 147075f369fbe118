import type { RootMutationTypeResolvers } from '../../../../graphql/resolvers-types.generated.js';
import { requireUser } from '../../guards.js';

export const changePassword: RootMutationTypeResolvers['changePassword'] = async (_parent, args, ctx) => {
  const user = await requireUser(ctx);
  return ctx.app.users.changePassword(user, args.oldPassword, args.newPassword, ctx.sessionId);
};
