import type { RootQueryTypeResolvers } from '../../../../graphql/resolvers-types.generated.js';
import { requireRole } from '../../guards.js';

export const user: RootQueryTypeResolvers['user'] = async (_parent, { id }, ctx) => {
  await requireRole(ctx, 'MODERATOR');
  return ctx.app.users.get(id);
};
