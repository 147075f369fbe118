/** The roles of a participant, as stored and as `ParticipantRoleEnum` names them. */
export const PARTICIPANT_ROLES = [
  'NOT_APPROVED',
  'NOT_CONFIRMED',
  'PARTICIPANT',
  'MODERATOR',
  'ADMINISTRATOR',
  'CREATOR',
  'REJECTED',
] as const;
export type ParticipantRole = (typeof PARTICIPANT_ROLES)[number];

/** Roles that may manage an event's participants (besides its organizer). */
export const EVENT_MODERATOR_ROLES: readonly ParticipantRole[] = ['MODERATOR', 'ADMINISTRATOR', 'CREATOR'];

/** A participation as stored: what resolvers hand to the GraphQL `Participant` (its codegen mapper). */
export interface ParticipantRow {
  id: string;
  eventId: string;
  actorId: string;
  role: ParticipantRole;
  message: string | null;
  locale: string | null;
  /** Set for anonymous participations only. */
  cancellationToken: string | null;
  insertedAt: Date;
}

/** The columns of `participants` under the names of ParticipantRow. */
export const PARTICIPANT_COLUMNS = `p.id::text AS "id", p.event_id::text AS "eventId",
  p.actor_id::text AS "actorId", p.role, p.message, p.locale, p.cancellation_token AS "cancellationToken",
  p.inserted_at AS "insertedAt"`;

/** Counts of an event's participants by role (the row of `event_participant_stats`). */
export interface ParticipantCounts {
  notApproved: number;
  notConfirmed: number;
  participant: number;
  moderator: number;
  administrator: number;
  creator: number;
  rejected: number;
}

export const NO_PARTICIPANTS: ParticipantCounts = Object.freeze({
  notApproved: 0,
  notConfirmed: 0,
  participant: 0,
  moderator: 0,
  administrator: 0,
  creator: 0,
  rejected: 0,
});

export const PARTICIPANT_COUNT_COLUMNS = `s.not_approved AS "notApproved", s.not_confirmed AS "notConfirmed",
  s.participant, s.moderator, s.administrator, s.creator, s.rejected`;
