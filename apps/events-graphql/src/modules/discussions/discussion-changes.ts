import type { Logger, PubSub } from '@agora/core';
import { pubsubEvents } from '../../graphql/subscriptions.js';

/** What travels on the channel: which discussion got which comment; subscribers load the discussion. */
export interface DiscussionCommentChange {
  discussionId: string;
  commentId: string;
}

/** One channel per discussion (the reference's topic is the discussion's slug, which names one discussion). */
export function discussionChannel(discussionId: string): string {
  return `events.discussion-comment.${discussionId}`;
}

/**
 * Tells every process that a comment was added to an existing discussion (`discussionCommentChanged`,
 * spec not-shown.md §3). Called after the reply committed; a failure to notify is logged only.
 */
export async function publishDiscussionComment(
  pubsub: PubSub,
  logger: Logger,
  change: DiscussionCommentChange,
): Promise<void> {
  try {
    await pubsub.publish(discussionChannel(change.discussionId), change);
  } catch (err) {
    logger.error({ err, change }, 'could not publish a discussion comment');
  }
}

/** The comments added to one discussion, from the moment it resolves. */
export function discussionComments(
  pubsub: PubSub,
  discussionId: string,
): Promise<AsyncIterableIterator<DiscussionCommentChange>> {
  return pubsubEvents<DiscussionCommentChange>(pubsub, discussionChannel(discussionId));
}
