import type { RootMutationTypeResolvers } from '../../../../graphql/resolvers-types.generated.js';
import { actingProfile } from '../../../groups/resolvers/acting-profile.js';
import { requireUser } from '../../../users/guards.js';

/** A moderator of the group (as the default profile) changes a member's role. */
export const updateMember: RootMutationTypeResolvers['updateMember'] = async (_parent, args, ctx) => {
  const user = await requireUser(ctx);
  return ctx.app.members.update(await actingProfile(ctx, user), args.memberId, args.role);
};
