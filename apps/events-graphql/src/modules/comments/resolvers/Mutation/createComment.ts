import type { RootMutationTypeResolvers } from '../../../../graphql/resolvers-types.generated.js';
import { requireUser } from '../../../users/guards.js';
import { commenter } from '../commenter.js';

/** A signed-in user comments an event (or replies) as their default profile. */
export const createComment: RootMutationTypeResolvers['createComment'] = async (_parent, args, ctx) => {
  const user = await requireUser(ctx);
  return ctx.app.comments.create(user, await commenter(ctx, user), {
    eventId: args.eventId,
    text: args.text,
    inReplyToCommentId: args.inReplyToCommentId,
    isAnnouncement: args.isAnnouncement,
    language: args.language,
  });
};
