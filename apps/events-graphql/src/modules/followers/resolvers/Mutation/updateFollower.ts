import type { RootMutationTypeResolvers } from '../../../../graphql/resolvers-types.generated.js';
import { actingProfile } from '../../../groups/resolvers/acting-profile.js';
import { requireUser } from '../../../users/guards.js';

/** A moderator of the followed group (as the default profile) approves or refuses a follower. */
export const updateFollower: RootMutationTypeResolvers['updateFollower'] = async (_parent, args, ctx) => {
  const user = await requireUser(ctx);
  return ctx.app.groupFollows.decide(await actingProfile(ctx, user), args.id, args.approved);
};
