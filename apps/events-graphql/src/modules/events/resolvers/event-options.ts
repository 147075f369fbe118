import type { EventOptions } from '../../../graphql/resolvers-types.generated.js';

/** What an event's options are when the organizer set nothing (the reference's defaults). */
const DEFAULT_OPTIONS: EventOptions = {
  anonymousParticipation: false,
  attendees: [],
  commentModeration: 'ALLOW_ALL',
  hideNumberOfParticipants: false,
  hideOrganizerWhenGroupEvent: false,
  isOnline: false,
  maximumAttendeeCapacity: 0,
  offers: [],
  participationConditions: [],
  program: '',
  // Counting participants comes with participation (issue 13 §2).
  remainingAttendeeCapacity: null,
  showEndTime: true,
  showParticipationPrice: false,
  showRemainingAttendeeCapacity: false,
  showStartTime: true,
  timezone: null,
};

/** The stored options over the defaults; the remaining capacity is never taken from input. */
export function eventOptions(stored: Record<string, unknown>): EventOptions {
  return { ...DEFAULT_OPTIONS, ...stored, remainingAttendeeCapacity: null } as EventOptions;
}

/** An options input as stored: only the values given, nulls dropped, no remaining capacity. */
export function storedOptions(input: object | null | undefined): Record<string, unknown> | undefined {
  if (input === null || input === undefined) return undefined;
  const entries = Object.entries(input).filter(
    ([key, value]) => value !== null && value !== undefined && key !== 'remainingAttendeeCapacity',
  );
  return Object.fromEntries(entries);
}
