import type { RootMutationTypeResolvers } from '../../../../graphql/resolvers-types.generated.js';
import { requireRole } from '../../guards.js';

export const adminUpdateUser: RootMutationTypeResolvers['adminUpdateUser'] = async (_parent, args, ctx) => {
  const admin = await requireRole(ctx, 'ADMINISTRATOR');
  return ctx.app.users.adminUpdate(admin, args.id, {
    email: args.email ?? undefined,
    role: args.role ?? undefined,
    confirmed: args.confirmed ?? undefined,
    notify: args.notify ?? false,
  });
};
