import type { RootMutationTypeResolvers } from '../../../../graphql/resolvers-types.generated.js';
import { requireUser } from '../../../users/guards.js';
import { eventInput } from '../event-input.js';
import { eventPicture } from '../event-picture.js';

/** A signed-in user creates an event organized by one of their profiles. */
export const createEvent: RootMutationTypeResolvers['createEvent'] = async (_parent, args, ctx) => {
  const user = await requireUser(ctx);
  const input = eventInput(args);
  return ctx.app.events.create(user, {
    ...input,
    title: args.title,
    description: args.description,
    beginsOn: args.beginsOn,
    organizerActorId: args.organizerActorId,
    publishAt: args.publishAt ?? null,
    picture: await eventPicture(ctx, user.id, args.picture),
  });
};
