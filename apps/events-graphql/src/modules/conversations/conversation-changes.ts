import type { Logger, PubSub } from '@agora/core';
import { pubsubEvents } from '../../graphql/subscriptions.js';

/** A reply was posted in conversation `conversationId`; subscribers load their own view of it. */
export interface ConversationReply {
  conversationId: string;
}

/** Profile `personId`'s unread count may have changed; subscribers count again. */
export interface UnreadCountChange {
  personId: string;
}

/** One channel per conversation: the reference's topic is the conversation's id. */
export function conversationChannel(conversationId: string): string {
  return `events.conversation-replied.${conversationId}`;
}

/** One channel per profile: the reference's topic is the person's id. */
export function unreadCountChannel(personId: string): string {
  return `events.conversations-unread.${personId}`;
}

/**
 * Tells every process of a reply (`conversationCommentChanged`, spec not-shown.md §3). Called after
 * the reply committed; a failure to notify is logged, never the caller's failure.
 */
export async function publishConversationReply(
  pubsub: PubSub,
  logger: Logger,
  conversationId: string,
): Promise<void> {
  try {
    await pubsub.publish(conversationChannel(conversationId), { conversationId });
  } catch (err) {
    logger.error({ err, conversationId }, 'could not publish a conversation reply');
  }
}

/** Tells every process that these profiles' unread counts may have changed (`personUnreadConversationsCount`). */
export async function publishUnreadCount(pubsub: PubSub, logger: Logger, personIds: string[]): Promise<void> {
  for (const personId of new Set(personIds)) {
    try {
      await pubsub.publish(unreadCountChannel(personId), { personId });
    } catch (err) {
      logger.error({ err, personId }, 'could not publish an unread conversations count');
    }
  }
}

export function conversationReplies(
  pubsub: PubSub,
  conversationId: string,
): Promise<AsyncIterableIterator<ConversationReply>> {
  return pubsubEvents<ConversationReply>(pubsub, conversationChannel(conversationId));
}

export function unreadCountChanges(
  pubsub: PubSub,
  personId: string,
): Promise<AsyncIterableIterator<UnreadCountChange>> {
  return pubsubEvents<UnreadCountChange>(pubsub, unreadCountChannel(personId));
}
