import type { EventResolvers } from '../../../graphql/resolvers-types.generated.js';

/** The comments module's field of `Event`: whoever reads the event reads its threads. */
export const Event: EventResolvers = {
  comments: (event, _args, ctx) => ctx.loaders.comments.eventComments.load(event.id),
};
