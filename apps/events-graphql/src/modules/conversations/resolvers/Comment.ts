import type { CommentResolvers } from '../../../graphql/resolvers-types.generated.js';

export const Comment: CommentResolvers = {
  /** The conversation a private message belongs to, as the caller takes part in it; null for anyone else. */
  conversation: async (comment, _args, ctx) => {
    const viewer = await ctx.viewer();
    if (!viewer || comment.visibility !== 'PRIVATE') return null;
    return ctx.loaders.conversations.ofComment.load(`${viewer.id}:${comment.id}`);
  },
};
