import type { RootMutationTypeResolvers } from '../../../../graphql/resolvers-types.generated.js';
import { requireUser } from '../../guards.js';

export const logout: RootMutationTypeResolvers['logout'] = async (_parent, { refreshToken }, ctx) => {
  const user = await requireUser(ctx);
  return ctx.app.users.logout(user, refreshToken);
};
