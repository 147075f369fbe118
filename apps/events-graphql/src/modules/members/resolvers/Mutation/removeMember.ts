import type { RootMutationTypeResolvers } from '../../../../graphql/resolvers-types.generated.js';
import { actingProfile } from '../../../groups/resolvers/acting-profile.js';
import { requireUser } from '../../../users/guards.js';

/** A moderator of the group (as the default profile) removes a member, or excludes it (`exclude`). */
export const removeMember: RootMutationTypeResolvers['removeMember'] = async (_parent, args, ctx) => {
  const user = await requireUser(ctx);
  return ctx.app.members.remove(await actingProfile(ctx, user), args.memberId, args.exclude ?? false);
};
