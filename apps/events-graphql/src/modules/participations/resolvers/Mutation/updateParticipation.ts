import type { RootMutationTypeResolvers } from '../../../../graphql/resolvers-types.generated.js';
import { requireUser } from '../../../users/guards.js';

/** The event's organizer or moderators, acting as the caller's default profile, set a participant's role. */
export const updateParticipation: RootMutationTypeResolvers['updateParticipation'] = async (
  _parent,
  { id, role },
  ctx,
) => {
  const user = await requireUser(ctx);
  const profile = await ctx.loaders.persons.defaultActor.load(user.id);
  return ctx.app.participations.updateRole(profile?.id ?? null, id, role);
};
