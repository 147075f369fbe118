import type { RootMutationTypeResolvers } from '../../../../graphql/resolvers-types.generated.js';
import { actingProfile } from '../../../groups/resolvers/acting-profile.js';
import { requireUser } from '../../../users/guards.js';

/** The caller's default profile follows a group. */
export const followGroup: RootMutationTypeResolvers['followGroup'] = async (_parent, args, ctx) => {
  const user = await requireUser(ctx);
  return ctx.app.groupFollows.follow(await actingProfile(ctx, user), args.groupId, args.notify ?? true);
};
