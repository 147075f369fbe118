import type { RootMutationTypeResolvers } from '../../../../graphql/resolvers-types.generated.js';
import { requireUser } from '../../../users/guards.js';

/** The event's organizer (or a moderator of its group, as the group) writes to its participants by role. */
export const sendEventPrivateMessage: RootMutationTypeResolvers['sendEventPrivateMessage'] = async (
  _parent,
  args,
  ctx,
) => {
  const user = await requireUser(ctx);
  return ctx.app.conversations.sendToParticipants(user, {
    actorId: args.actorId,
    eventId: args.eventId,
    text: args.text,
    roles: args.roles,
    language: args.language,
  });
};
