import type { RootMutationTypeResolvers } from '../../../../graphql/resolvers-types.generated.js';
import { actingProfile } from '../../../groups/resolvers/acting-profile.js';
import { requireUser } from '../../../users/guards.js';

/** A moderator of the group (as the default profile) rejects a membership request. */
export const rejectMember: RootMutationTypeResolvers['rejectMember'] = async (_parent, { memberId }, ctx) => {
  const user = await requireUser(ctx);
  return ctx.app.members.reject(await actingProfile(ctx, user), memberId);
};
