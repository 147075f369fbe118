import DataLoader from 'dataloader';
import type { AppContext } from '../../context.js';
import type { EventRow } from '../events/event-row.js';
import { NO_PARTICIPANTS, type ParticipantCounts } from './participant-row.js';
import { ParticipantsView } from './views/participants.view.js';

/** Batches of one operation: a page of events or participants costs one query per field. */
export interface ParticipationLoaders {
  /** Counts per role of an event (`participantStats`, `remainingAttendeeCapacity`). */
  counts: DataLoader<string, ParticipantCounts>;
  /** Whether one of a user's profiles moderates an event; keys are `userId:eventId`. */
  moderates: DataLoader<string, boolean>;
  /** The event of a participation. */
  events: DataLoader<string, EventRow | null>;
  view: ParticipantsView;
}

/** Built on first use by the request context (`ctx.loaders.participations`). */
export function createParticipationLoaders(app: AppContext): ParticipationLoaders {
  const view = new ParticipantsView(app);
  return {
    view,
    counts: new DataLoader(async (eventIds) => {
      const found = await view.countsOf(eventIds);
      return eventIds.map((id) => found.get(id) ?? NO_PARTICIPANTS);
    }),
    moderates: new DataLoader(async (keys) => {
      const byUser = new Map<string, string[]>();
      for (const key of keys) {
        const [userId = '', eventId = ''] = key.split(':');
        byUser.set(userId, [...(byUser.get(userId) ?? []), eventId]);
      }
      const moderated = new Set<string>();
      for (const [userId, eventIds] of byUser) {
        for (const eventId of await view.moderatedBy(userId, eventIds)) moderated.add(`${userId}:${eventId}`);
      }
      return keys.map((key) => moderated.has(key));
    }),
    events: new DataLoader(async (eventIds) => {
      const found = await view.eventsByIds(eventIds);
      return eventIds.map((id) => found.get(id) ?? null);
    }),
  };
}
