import type { EventResolvers } from '../../../graphql/resolvers-types.generated.js';

const NONE = { elements: [], total: 0 };

export const Event: EventResolvers = {
  /**
   * The conversations started about the event, as its organizing group (for the group's moderators) or
   * its organizer (for its owner) sees them; an empty page for anyone else, as the reference answers.
   */
  conversations: async (event, { page, limit }, ctx) => {
    const viewer = await ctx.viewer();
    if (!viewer) return NONE;
    const view = ctx.loaders.conversations.view;
    const organizer = event.attributedToId ?? event.organizerActorId;
    const allowed =
      (await view.actsAs(viewer.id, organizer)) ||
      (organizer !== event.organizerActorId && (await view.actsAs(viewer.id, event.organizerActorId)));
    if (!allowed) return NONE;
    return view.ofEvent(event.id, organizer, { page: page ?? 1, limit: limit ?? 10 });
  },
};
