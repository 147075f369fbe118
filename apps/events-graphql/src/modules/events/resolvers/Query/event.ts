import type { RootQueryTypeResolvers } from '../../../../graphql/resolvers-types.generated.js';

/** Anyone reads a published event; drafts and private events only their organizer's owner. */
export const event: RootQueryTypeResolvers['event'] = async (_parent, { uuid }, ctx) =>
  ctx.app.events.get(uuid, await ctx.viewer());
