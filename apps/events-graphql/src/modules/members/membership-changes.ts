import type { Logger, PubSub } from '@agora/core';
import { pubsubEvents } from '../../graphql/subscriptions.js';

/** What travels on the channel: whose membership of which group became what; subscribers load the profile. */
export interface MembershipChange {
  personId: string;
  groupId: string;
  memberId: string;
  role: string;
}

/** One channel per group and profile: the reference's topic is [group username, personId]. */
export function membershipChannel(groupId: string, personId: string): string {
  return `events.membership-changed.${groupId}.${personId}`;
}

/**
 * Tells every process that a membership was created, approved, accepted or changed
 * (`groupMembershipChanged`, spec not-shown.md §3). Called after the change committed; a failure to
 * notify is logged, never the caller's failure.
 */
export async function publishMembershipChange(
  pubsub: PubSub,
  logger: Logger,
  change: MembershipChange,
): Promise<void> {
  try {
    await pubsub.publish(membershipChannel(change.groupId, change.personId), change);
  } catch (err) {
    logger.error({ err, change }, 'could not publish a membership change');
  }
}

/** The changes of one profile's membership of one group, from the moment it resolves. */
export function membershipChanges(
  pubsub: PubSub,
  groupId: string,
  personId: string,
): Promise<AsyncIterableIterator<MembershipChange>> {
  return pubsubEvents<MembershipChange>(pubsub, membershipChannel(groupId, personId));
}
