import type { RootQueryTypeResolvers } from '../../../../graphql/resolvers-types.generated.js';
import { requireRole } from '../../guards.js';
import { UsersView } from '../../views/users.view.js';

export const users: RootQueryTypeResolvers['users'] = async (_parent, args, ctx) => {
  await requireRole(ctx, 'MODERATOR');
  return new UsersView(ctx.app).list({
    email: args.email ?? '',
    currentSignInIp: args.currentSignInIp ?? undefined,
    direction: args.direction ?? 'DESC',
    page: args.page ?? 1,
    limit: args.limit ?? 10,
  });
};
