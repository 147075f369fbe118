import type { RootMutationTypeResolvers } from '../../../../graphql/resolvers-types.generated.js';
import { actingProfile } from '../../../groups/resolvers/acting-profile.js';
import { requireUser } from '../../../users/guards.js';

/** The caller's default profile leaves a group; the answer names the membership that went. */
export const leaveGroup: RootMutationTypeResolvers['leaveGroup'] = async (_parent, { groupId }, ctx) => {
  const user = await requireUser(ctx);
  const member = await ctx.app.members.leave(await actingProfile(ctx, user), groupId);
  return { id: member.id };
};
