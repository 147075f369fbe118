import type { RootMutationTypeResolvers } from '../../../../graphql/resolvers-types.generated.js';
import { actingProfile } from '../../../groups/resolvers/acting-profile.js';
import { requireUser } from '../../../users/guards.js';

/** The caller's default profile stops following a group. */
export const unfollowGroup: RootMutationTypeResolvers['unfollowGroup'] = async (
  _parent,
  { groupId },
  ctx,
) => {
  const user = await requireUser(ctx);
  return ctx.app.groupFollows.unfollow(await actingProfile(ctx, user), groupId);
};
