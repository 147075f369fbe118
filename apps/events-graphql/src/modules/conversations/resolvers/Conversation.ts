import type { ConversationResolvers } from '../../../graphql/resolvers-types.generated.js';

// id, unread, insertedAt and updatedAt are read as stored.
export const Conversation: ConversationResolvers = {
  conversationParticipantId: (conversation) => conversation.participantId,
  actor: (conversation, _args, ctx) => ctx.loaders.persons.actors.load(conversation.actorId),
  participants: async (conversation, _args, ctx) => {
    const ids = await ctx.loaders.conversations.participants.load(conversation.id);
    const actors = await Promise.all(ids.map((id) => ctx.loaders.persons.actors.load(id)));
    return actors.filter((actor) => actor !== null);
  },
  event: (conversation, _args, ctx) =>
    conversation.eventId === null ? null : ctx.loaders.comments.events.load(conversation.eventId),
  lastComment: (conversation, _args, ctx) =>
    conversation.lastCommentId === null ? null : ctx.loaders.comments.byId.load(conversation.lastCommentId),
  originComment: (conversation, _args, ctx) =>
    conversation.originCommentId === null
      ? null
      : ctx.loaders.comments.byId.load(conversation.originCommentId),
  /** Reached only through a view its caller is a participant of: the messages, oldest first. */
  comments: (conversation, { page, limit }, ctx) =>
    ctx.loaders.conversations.comments.load(`${conversation.id}:${page ?? 1}:${limit ?? 10}`),
};
