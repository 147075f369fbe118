import type { RootMutationTypeResolvers } from '../../../../graphql/resolvers-types.generated.js';
import { requireUser } from '../../../users/guards.js';
import { eventInput } from '../event-input.js';
import { eventPicture } from '../event-picture.js';

/** The organizer's owner changes an event; omitted arguments leave their values. */
export const updateEvent: RootMutationTypeResolvers['updateEvent'] = async (
  _parent,
  { eventId, picture, ...args },
  ctx,
) => {
  const user = await requireUser(ctx);
  return ctx.app.events.update(user, eventId, {
    ...eventInput(args),
    picture: await eventPicture(ctx, user.id, picture),
  });
};
