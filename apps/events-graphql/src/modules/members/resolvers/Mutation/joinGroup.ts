import type { RootMutationTypeResolvers } from '../../../../graphql/resolvers-types.generated.js';
import { actingProfile } from '../../../groups/resolvers/acting-profile.js';
import { requireUser } from '../../../users/guards.js';

/** The caller's default profile joins (or asks to join) a group. */
export const joinGroup: RootMutationTypeResolvers['joinGroup'] = async (_parent, { groupId }, ctx) => {
  const user = await requireUser(ctx);
  return ctx.app.members.join(await actingProfile(ctx, user), groupId);
};
