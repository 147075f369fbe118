import type { RootMutationTypeResolvers } from '../../../../graphql/resolvers-types.generated.js';
import { actingModerator } from '../../../action-logs/acting-moderator.js';
import { requireUser } from '../../../users/guards.js';

/** The author, the event's organizer or an instance moderator deletes a comment (a tombstone stays). */
export const deleteComment: RootMutationTypeResolvers['deleteComment'] = async (
  _parent,
  { commentId },
  ctx,
) => {
  const user = await requireUser(ctx);
  return ctx.app.comments.remove(user, commentId, await actingModerator(ctx, user));
};
