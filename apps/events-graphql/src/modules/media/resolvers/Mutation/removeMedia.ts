import type { RootMutationTypeResolvers } from '../../../../graphql/resolvers-types.generated.js';
import { requireUser } from '../../../users/guards.js';

export const removeMedia: RootMutationTypeResolvers['removeMedia'] = async (_parent, { id }, ctx) => {
  const user = await requireUser(ctx);
  const removed = await ctx.app.media.remove(user.id, id);
  return { id: String(removed.id) };
};
