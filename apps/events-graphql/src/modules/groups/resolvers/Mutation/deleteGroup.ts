import type { RootMutationTypeResolvers } from '../../../../graphql/resolvers-types.generated.js';
import { requireUser } from '../../../users/guards.js';
import { actingProfile } from '../acting-profile.js';

/** The group's administrators (as the default profile). */
export const deleteGroup: RootMutationTypeResolvers['deleteGroup'] = async (_parent, { groupId }, ctx) => {
  const user = await requireUser(ctx);
  const group = await ctx.app.groups.remove(await actingProfile(ctx, user), groupId);
  return { id: group.id };
};
