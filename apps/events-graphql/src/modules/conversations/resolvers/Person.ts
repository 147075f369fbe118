import type { PersonResolvers } from '../../../graphql/resolvers-types.generated.js';

export const Person: PersonResolvers = {
  /** The profile's conversations (and its moderated groups'): for its owner, null for anyone else. */
  conversations: async (actor, { page, limit }, ctx) => {
    const viewer = await ctx.viewer();
    if (!viewer || !actor.userId || viewer.id !== actor.userId) return null;
    return ctx.loaders.conversations.view.ofPerson(actor.id, { page: page ?? 1, limit: limit ?? 10 });
  },
  /** Unread conversations: for the profile's owner, null for anyone else. */
  unreadConversationsCount: async (actor, _args, ctx) => {
    const viewer = await ctx.viewer();
    if (!viewer || !actor.userId || viewer.id !== actor.userId) return null;
    return ctx.loaders.conversations.unreadCounts.load(actor.id);
  },
};
