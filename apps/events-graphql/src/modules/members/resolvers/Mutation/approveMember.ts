import type { RootMutationTypeResolvers } from '../../../../graphql/resolvers-types.generated.js';
import { actingProfile } from '../../../groups/resolvers/acting-profile.js';
import { requireUser } from '../../../users/guards.js';

/** A moderator of the group (as the default profile) approves a membership request. */
export const approveMember: RootMutationTypeResolvers['approveMember'] = async (
  _parent,
  { memberId },
  ctx,
) => {
  const user = await requireUser(ctx);
  return ctx.app.members.approve(await actingProfile(ctx, user), memberId);
};
