import type { RootMutationTypeResolvers } from '../../../../graphql/resolvers-types.generated.js';
import { actingProfile } from '../../../groups/resolvers/acting-profile.js';
import { requireUser } from '../../../users/guards.js';

/** Members of the resource's group; a folder goes with everything in it. */
export const deleteResource: RootMutationTypeResolvers['deleteResource'] = async (_parent, { id }, ctx) => {
  const user = await requireUser(ctx);
  const removed = await ctx.app.resources.remove(await actingProfile(ctx, user), id);
  return { id: removed.id };
};
