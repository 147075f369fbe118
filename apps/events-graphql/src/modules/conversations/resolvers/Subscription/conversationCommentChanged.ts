import { Forbidden } from '@agora/core';
import type { GraphQLContext } from '../../../../graphql/context.js';
import type { RootSubscriptionTypeResolvers } from '../../../../graphql/resolvers-types.generated.js';
import { requireUser } from '../../../users/guards.js';
import { conversationReplies, type ConversationReply } from '../../conversation-changes.js';

/**
 * The conversation, again, each time a reply is posted in it (spec not-shown.md §3), whichever process
 * wrote it; only for the conversation's participants (and moderators of a participant group).
 */
export const conversationCommentChanged: RootSubscriptionTypeResolvers['conversationCommentChanged'] = {
  subscribe: async (_parent, { id }, ctx) => {
    const user = await requireUser(ctx);
    if (!(await ctx.app.conversations.forParticipant(user, id))) throw new Forbidden();
    return conversationReplies(ctx.app.pubsub, id);
  },
  resolve: async (reply: ConversationReply, _args: unknown, ctx: GraphQLContext) => {
    // Each reply is an execution of its own: nothing cached by the previous one.
    ctx.renew();
    const user = await ctx.viewer();
    return user ? ctx.app.conversations.forParticipant(user, reply.conversationId) : null;
  },
};
