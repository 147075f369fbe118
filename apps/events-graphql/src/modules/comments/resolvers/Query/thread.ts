import type { RootQueryTypeResolvers } from '../../../../graphql/resolvers-types.generated.js';

/** Anyone reads a thread's replies, if they can see its event (not-shown.md §2.2: anonymous allowed). */
export const thread: RootQueryTypeResolvers['thread'] = async (_parent, { id }, ctx) =>
  ctx.app.comments.thread(id, await ctx.viewer());
