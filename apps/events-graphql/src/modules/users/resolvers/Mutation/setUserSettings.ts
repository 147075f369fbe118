import type { RootMutationTypeResolvers } from '../../../../graphql/resolvers-types.generated.js';
import { requireUser } from '../../guards.js';

export const setUserSettings: RootMutationTypeResolvers['setUserSettings'] = async (_parent, args, ctx) => {
  const user = await requireUser(ctx);
  return ctx.app.users.setSettings(user, args);
};
