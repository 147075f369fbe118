import { Forbidden } from '@agora/core';
import type { GraphQLContext } from '../../../../graphql/context.js';
import type { RootSubscriptionTypeResolvers } from '../../../../graphql/resolvers-types.generated.js';
import { requireUser } from '../../../users/guards.js';
import { unreadCountChanges, type UnreadCountChange } from '../../conversation-changes.js';
import { CONVERSATION_MESSAGES } from '../../conversation.service.js';

/**
 * The profile's count of unread conversations each time a message, a read mark or a deletion may have
 * changed it (spec not-shown.md §3); only for the profile's owner.
 */
export const personUnreadConversationsCount: RootSubscriptionTypeResolvers['personUnreadConversationsCount'] =
  {
    subscribe: async (_parent, { personId }, ctx) => {
      const user = await requireUser(ctx);
      const person = await ctx.loaders.persons.actors.load(personId);
      if (!person || person.type !== 'Person' || person.userId !== user.id) {
        throw new Forbidden(CONVERSATION_MESSAGES.notOwned, { code: 'unknown_error' });
      }
      return unreadCountChanges(ctx.app.pubsub, person.id);
    },
    resolve: (change: UnreadCountChange, _args: unknown, ctx: GraphQLContext) => {
      ctx.renew();
      return ctx.loaders.conversations.unreadCounts.load(change.personId);
    },
  };
