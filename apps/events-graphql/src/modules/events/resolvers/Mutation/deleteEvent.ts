import type { RootMutationTypeResolvers } from '../../../../graphql/resolvers-types.generated.js';
import { actingModerator } from '../../../action-logs/acting-moderator.js';
import { requireUser } from '../../../users/guards.js';

/** The organizer's owner, or an instance moderator, deletes an event. */
export const deleteEvent: RootMutationTypeResolvers['deleteEvent'] = async (_parent, { eventId }, ctx) => {
  const user = await requireUser(ctx);
  const event = await ctx.app.events.remove(user, eventId, await actingModerator(ctx, user));
  return { id: event.id };
};
