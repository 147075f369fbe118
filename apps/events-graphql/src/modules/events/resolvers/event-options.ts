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
  remainingAttendeeCapacity: null,
  showEndTime: true,
  showParticipationPrice: false,
  showRemainingAttendeeCapacity: false,
  showStartTime: true,
  timezone: null,
};

/**
 * The stored options over the defaults; the remaining capacity is never taken from input: it is the
 * maximum less the PARTICIPANTs, when there is a maximum (null otherwise).
 */
export function eventOptions(stored: Record<string, unknown>, participants = 0): EventOptions {
  const maximum = typeof stored.maximumAttendeeCapacity === 'number' ? stored.maximumAttendeeCapacity : 0;
  const remainingAttendeeCapacity = maximum > 0 ? Math.max(maximum - participants, 0) : null;
  return { ...DEFAULT_OPTIONS, ...stored, remainingAttendeeCapacity } as EventOptions;
}

/** An options input as stored: only the values given, nulls dropped, no remaining capacity. */
export function storedOptions(input: object | null | undefined): Record<string, unknown> | undefined {
  if (input === null || input === undefined) return undefined;
  const entries = Object.entries(input).filter(
    ([key, value]) => value !== null && value !== undefined && key !== 'remainingAttendeeCapacity',
  );
  return Object.fromEntries(entries);
}
