import type { RootMutationTypeResolvers } from '../../../../graphql/resolvers-types.generated.js';
import { requireUser } from '../../../users/guards.js';

/** The author's owner changes a comment's text. */
export const updateComment: RootMutationTypeResolvers['updateComment'] = async (_parent, args, ctx) => {
  const user = await requireUser(ctx);
  return ctx.app.comments.update(user, args.commentId, {
    text: args.text,
    isAnnouncement: args.isAnnouncement,
    language: args.language,
  });
};
