import type { Logger, PubSub } from '@agora/core';
import { pubsubEvents } from '../../graphql/subscriptions.js';

/** What travels on the channel: which participation became what; subscribers load the profile. */
export interface ParticipationChange {
  personId: string;
  eventId: string;
  participantId: string;
  role: string;
}

/** One channel per profile, so a process listens only for the profiles its sockets follow. */
export function participationChannel(personId: string): string {
  return `events.participation-changed.${personId}`;
}

/**
 * Tells every process that a participation was accepted or rejected (`eventPersonParticipationChanged`,
 * spec not-shown.md §3). Called after the change committed; a failure to notify is logged, never the
 * caller's failure.
 */
export async function publishParticipationChange(
  pubsub: PubSub,
  logger: Logger,
  change: ParticipationChange,
): Promise<void> {
  try {
    await pubsub.publish(participationChannel(change.personId), change);
  } catch (err) {
    logger.error({ err, change }, 'could not publish a participation change');
  }
}

/** The changes of one profile's participations, from the moment it resolves. */
export function participationChanges(
  pubsub: PubSub,
  personId: string,
): Promise<AsyncIterableIterator<ParticipationChange>> {
  return pubsubEvents<ParticipationChange>(pubsub, participationChannel(personId));
}
