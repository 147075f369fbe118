import type { RootMutationTypeResolvers } from '../../../../graphql/resolvers-types.generated.js';
import { actingProfile } from '../../../groups/resolvers/acting-profile.js';
import { requireUser } from '../../../users/guards.js';

/** A moderator of the group (as the default profile) invites a profile by username. */
export const inviteMember: RootMutationTypeResolvers['inviteMember'] = async (_parent, args, ctx) => {
  const user = await requireUser(ctx);
  return ctx.app.members.invite(await actingProfile(ctx, user), args.groupId, args.targetActorUsername);
};
