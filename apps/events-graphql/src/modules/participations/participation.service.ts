import { canManageEvent } from './event-managers.js';
import { randomBytes } from 'node:crypto';
import type { SessionUser } from '@agora/auth';
import {
  BadInput,
  Forbidden,
  NotFound,
  Unauthenticated,
  type JobQueue,
  type Logger,
  type PubSub,
} from '@agora/core';
import { isRowId } from '@agora/db';
import type { ActorStore } from '@agora/federation';
import sanitizeHtml from 'sanitize-html';
import { QueryTypes, UniqueConstraintError, type Sequelize, type Transaction } from 'sequelize';
import type { InstanceEnvConfig } from '../../config/config.js';
import { EVENT_COLUMNS, type EventRow } from '../events/event-row.js';
import type { AnonymousActor } from './anonymous-actor.js';
import { PARTICIPANT_COLUMNS, type ParticipantRole, type ParticipantRow } from './participant-row.js';
import { publishParticipationChange } from './participation-changes.js';
import type { EventChanges, ParticipationMails } from './participation-mails.js';

/** The job that e-mails an event's participants about a change of its time, place or status. */
export const EVENT_CHANGED_JOB = 'participations.event-changed';

/** The reference's texts; all are plain-string refusals there (`unknown_error`, status_code 500). */
export const PARTICIPATION_MESSAGES = {
  notOwned: 'Profile is not owned by authenticated user',
  eventMissing: (id: string) => `Event with this ID ${JSON.stringify(id)} doesn't exist`,
  alreadyParticipant: 'You are already a participant of this event',
  full: 'The event has already reached its maximum capacity',
  anonymousDisabled: 'Anonymous participation is not enabled',
  notAnonymousActor: 'Profile ID provided is not the anonymous profile one',
  anonymousActorInvalid: 'The anonymous actor ID is invalid',
  emailRequired: 'A valid email is required by your instance',
  onlyCreator: "You can't leave event because you're the only event creator participant",
  participantNotFound: 'Participant not found',
  loginToLeave: 'You need to be logged-in to leave an event',
  alreadyRole: (role: string) => `Participant already has role ${role.toLowerCase()}`,
  notModerator: "Provided profile doesn't have moderator permissions on this event",
  listNotModerator: "Provided moderator profile doesn't have permission on this event",
  notApprovedYet: 'Participation is confirmed but not approved yet by an organizer',
  alreadyConfirmed: 'Participation is already confirmed',
  invalidToken: 'This token is invalid',
  // Ours: the reference has no rule for these.
  external: 'Participation in this event is managed on an external website',
  roleNotGiven: 'This role can not be given to a participant',
  creatorRole: "The role of the event's creator can not be changed",
} as const;

const REFUSAL = { code: 'unknown_error' } as const;

/** The reference's anonymous participation tokens: 30 random characters. */
function randomToken(): string {
  return randomBytes(30).toString('base64url').slice(0, 30);
}

/** What `updateParticipation` may set; CREATOR and NOT_CONFIRMED come only from their own paths. */
const GIVEN_ROLES: readonly ParticipantRole[] = [
  'NOT_APPROVED',
  'PARTICIPANT',
  'MODERATOR',
  'ADMINISTRATOR',
  'REJECTED',
];

// A pragmatic check of an address's shape (something@domain.tld, no spaces), as the reference's checker.
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export interface JoinInput {
  eventId: string;
  actorId: string;
  email?: string | null | undefined;
  message?: string | null | undefined;
  locale?: string | null | undefined;
  timezone?: string | null | undefined;
}

export interface LeaveResult {
  id: string;
  event: EventRow;
  actorId: string;
}

/** What federation hears once a participation change committed (it sends Join, Accept, Reject, Leave). */
export interface ParticipationHooks {
  joined(participant: ParticipantRow, event: EventRow): Promise<void>;
  roleChanged(participant: ParticipantRow, event: EventRow): Promise<void>;
  left(left: LeaveResult & { url: string | null }): Promise<void>;
}

export interface ParticipationServiceOptions {
  sequelize: Sequelize;
  actors: ActorStore;
  anonymousActor: AnonymousActor;
  anonymous: InstanceEnvConfig['anonymous']['participation'];
  pubsub: PubSub;
  queue: JobQueue;
  logger: Logger;
  mails: ParticipationMails;
  hooks?: ParticipationHooks;
}

/**
 * The rules of participation (spec not-shown.md §6 behaviours 1–7): who joins with which role, the
 * capacity, anonymous participation with its tokens, who manages participants, and what is told
 * (subscriptions, e-mails) once a change committed.
 */
export class ParticipationService {
  constructor(private readonly options: ParticipationServiceOptions) {}

  /** A signed-in user's profile, or (without a user) the anonymous actor, joins an event. */
  async join(user: SessionUser | null, input: JoinInput): Promise<ParticipantRow> {
    const anonymous = user === null;
    let email: string | null = null;
    let event: EventRow;
    if (anonymous) {
      event = await this.joinableEvent(input.eventId);
      const allowed =
        this.options.anonymous.allowed && event.local && event.options.anonymousParticipation === true;
      if (!allowed) throw new Forbidden(PARTICIPATION_MESSAGES.anonymousDisabled, REFUSAL);
      if (input.actorId !== (await this.options.anonymousActor.id())) {
        throw new Forbidden(PARTICIPATION_MESSAGES.notAnonymousActor, REFUSAL);
      }
      email = input.email?.trim() || null;
      const required = this.options.anonymous.emailRequired;
      if ((required && email === null) || (email !== null && !EMAIL.test(email))) {
        throw new BadInput(PARTICIPATION_MESSAGES.emailRequired, REFUSAL);
      }
    } else {
      if (!(await this.ownsProfile(user, input.actorId))) {
        throw new Forbidden(PARTICIPATION_MESSAGES.notOwned, REFUSAL);
      }
      event = await this.joinableEvent(input.eventId);
    }
    if (event.joinOptions === 'EXTERNAL') throw new Forbidden(PARTICIPATION_MESSAGES.external, REFUSAL);

    // Anonymous people confirm their address first when the instance asks for it.
    const confirming = anonymous && email !== null && this.options.anonymous.emailConfirmation;
    const role: ParticipantRole = confirming ? 'NOT_CONFIRMED' : defaultRole(event);
    const participant = await this.options.sequelize.transaction(async (transaction) => {
      const capacity = await this.lockCapacity(event.id, transaction);
      if (await this.hasParticipation(event.id, input.actorId, email, transaction)) {
        throw new BadInput(PARTICIPATION_MESSAGES.alreadyParticipant, REFUSAL);
      }
      // A full event takes no more requests either (the reference checks before any role).
      if (capacity.full) throw new BadInput(PARTICIPATION_MESSAGES.full, REFUSAL);
      try {
        return await this.insert(
          {
            eventId: event.id,
            actorId: input.actorId,
            role,
            message: plainText(input.message),
            locale: input.locale ?? null,
            timezone: input.timezone ?? null,
            email,
            confirmationToken: confirming ? randomToken() : null,
            cancellationToken: anonymous ? randomToken() : null,
          },
          transaction,
        );
      } catch (error) {
        if (error instanceof UniqueConstraintError) {
          throw new BadInput(PARTICIPATION_MESSAGES.alreadyParticipant, REFUSAL);
        }
        throw error;
      }
    });
    if (participant.role === 'PARTICIPANT') await this.publish(participant);
    if (confirming) await this.options.mails.confirmAnonymous(participant.id, event);
    if (!anonymous) await this.options.hooks?.joined(participant, event);
    return participant;
  }

  /**
   * A remote actor's Join of a local event (not-shown.md §5): the same rules as a local join (FREE
   * events admit at once, others wait; the capacity holds), recorded under the Join's id.
   * Errors: NotFound (no such local event), Forbidden (external or invitation only), BadInput (full, twice).
   */
  async joinFromRemote(
    actorId: string,
    eventId: string,
    join: { url: string | null; message: string | null },
  ): Promise<{ participant: ParticipantRow; event: EventRow }> {
    const event = await this.joinableEvent(eventId);
    if (!event.local) throw new NotFound(PARTICIPATION_MESSAGES.eventMissing(eventId), REFUSAL);
    if (event.joinOptions === 'EXTERNAL' || event.joinOptions === 'INVITE') {
      throw new Forbidden(PARTICIPATION_MESSAGES.external, REFUSAL);
    }
    const participant = await this.options.sequelize.transaction(async (transaction) => {
      const capacity = await this.lockCapacity(event.id, transaction);
      if (await this.hasParticipation(event.id, actorId, null, transaction)) {
        throw new BadInput(PARTICIPATION_MESSAGES.alreadyParticipant, REFUSAL);
      }
      if (capacity.full) throw new BadInput(PARTICIPATION_MESSAGES.full, REFUSAL);
      return this.insert(
        {
          eventId: event.id,
          actorId,
          role: defaultRole(event),
          message: plainText(join.message),
          locale: null,
          timezone: null,
          email: null,
          confirmationToken: null,
          cancellationToken: null,
          url: join.url,
        },
        transaction,
      );
    });
    if (participant.role === 'PARTICIPANT') await this.publish(participant);
    return { participant, event };
  }

  /** A remote actor's Leave of a local event; false when it had no participation (or is the only creator). */
  async leaveFromRemote(actorId: string, eventId: string): Promise<boolean> {
    const [row] = await this.options.sequelize.query<{ id: string }>(
      `DELETE FROM participants p WHERE p.event_id = :eventId AND p.actor_id = :actorId AND p.role <> 'CREATOR'
       RETURNING p.id::text AS id`,
      { type: QueryTypes.SELECT, replacements: { eventId, actorId } },
    );
    return row !== undefined;
  }

  /** A profile of the caller leaves; anonymous participants prove theirs with the cancellation token. */
  async leave(
    user: SessionUser | null,
    input: { eventId: string; actorId: string; token?: string | null | undefined },
  ): Promise<LeaveResult> {
    const token = input.token ?? null;
    if (token !== null) {
      if (!this.options.anonymous.allowed) {
        throw new Forbidden(PARTICIPATION_MESSAGES.anonymousDisabled, REFUSAL);
      }
      if (input.actorId !== (await this.options.anonymousActor.id())) {
        throw new Forbidden(PARTICIPATION_MESSAGES.anonymousActorInvalid, REFUSAL);
      }
    } else {
      if (!user) throw new Unauthenticated(PARTICIPATION_MESSAGES.loginToLeave, REFUSAL);
      if (!(await this.ownsProfile(user, input.actorId))) {
        throw new Forbidden(PARTICIPATION_MESSAGES.notOwned, REFUSAL);
      }
    }
    const event = await this.existingEvent(input.eventId);
    const left = await this.options.sequelize.transaction(async (transaction) => {
      const [found] = await this.options.sequelize.query<{
        id: string;
        role: ParticipantRole;
        creators: number;
        url: string | null;
      }>(
        `SELECT p.id::text AS id, p.role, p.url,
           (SELECT count(*)::int FROM participants c WHERE c.event_id = p.event_id AND c.role = 'CREATOR') AS creators
         FROM participants p
         WHERE p.event_id = :eventId AND p.actor_id = :actorId
           AND (:token::text IS NULL OR p.cancellation_token = :token)
         ORDER BY p.id LIMIT 1
         FOR UPDATE OF p`,
        {
          type: QueryTypes.SELECT,
          transaction,
          replacements: { eventId: event.id, actorId: input.actorId, token },
        },
      );
      if (found?.role === 'CREATOR' && found.creators <= 1) {
        throw new Forbidden(PARTICIPATION_MESSAGES.onlyCreator, REFUSAL);
      }
      if (!found) throw new NotFound(PARTICIPATION_MESSAGES.participantNotFound, REFUSAL);
      await this.options.sequelize.query('DELETE FROM participants WHERE id = :id', {
        transaction,
        replacements: { id: found.id },
      });
      return { id: found.id, event, actorId: input.actorId, url: found.url };
    });
    if (token === null) await this.options.hooks?.left(left);
    return { id: left.id, event: left.event, actorId: left.actorId };
  }

  /**
   * The event's managers (`managerActorId` is the caller's default profile) set a participant's role;
   * approving counts against the capacity. Accepting and rejecting are told to the participant.
   */
  async updateRole(
    managerActorId: string | null,
    participantId: string,
    role: ParticipantRole,
  ): Promise<ParticipantRow> {
    const current = isRowId(participantId) ? await this.byId(participantId) : null;
    if (!current) throw new NotFound(PARTICIPATION_MESSAGES.participantNotFound, REFUSAL);
    if (current.role === role) throw new BadInput(PARTICIPATION_MESSAGES.alreadyRole(role), REFUSAL);
    const event = (await this.eventById(current.eventId))!;
    if (managerActorId === null || !(await this.canManage(managerActorId, event))) {
      throw new Forbidden(PARTICIPATION_MESSAGES.notModerator, REFUSAL);
    }
    if (!GIVEN_ROLES.includes(role)) throw new BadInput(PARTICIPATION_MESSAGES.roleNotGiven, REFUSAL);
    if (current.role === 'CREATOR') throw new Forbidden(PARTICIPATION_MESSAGES.creatorRole, REFUSAL);
    const updated = await this.changeRole(current.id, event.id, role);
    await this.told(updated, event);
    await this.options.hooks?.roleChanged(updated, event);
    return updated;
  }

  /** An anonymous participant confirms the address the confirmation e-mail went to. */
  async confirm(token: string): Promise<ParticipantRow> {
    const [found] = token
      ? await this.options.sequelize.query<ParticipantRow>(
          `SELECT ${PARTICIPANT_COLUMNS} FROM participants p WHERE p.confirmation_token = :token`,
          { type: QueryTypes.SELECT, replacements: { token } },
        )
      : [];
    if (found?.role === 'NOT_APPROVED') throw new BadInput(PARTICIPATION_MESSAGES.notApprovedYet, REFUSAL);
    if (found?.role === 'PARTICIPANT') throw new BadInput(PARTICIPATION_MESSAGES.alreadyConfirmed, REFUSAL);
    if (found?.role !== 'NOT_CONFIRMED') throw new BadInput(PARTICIPATION_MESSAGES.invalidToken, REFUSAL);
    const event = (await this.eventById(found.eventId))!;
    const confirmed = await this.changeRole(found.id, event.id, defaultRole(event), 'NOT_CONFIRMED');
    if (confirmed.role === 'PARTICIPANT') await this.publish(confirmed);
    return confirmed;
  }

  /**
   * After an event's update: when its time, place or status changed, its participants are e-mailed
   * (off the request, through the queue).
   */
  async eventUpdated(before: EventRow, after: EventRow): Promise<void> {
    const changes: EventChanges = {};
    if (before.beginsOn.getTime() !== after.beginsOn.getTime())
      changes.beginsOn = after.beginsOn.toISOString();
    if ((before.endsOn?.getTime() ?? null) !== (after.endsOn?.getTime() ?? null)) {
      changes.endsOn = after.endsOn?.toISOString() ?? null;
    }
    if (before.status !== after.status) changes.status = after.status;
    if (before.onlineAddress !== after.onlineAddress) changes.onlineAddress = after.onlineAddress;
    if (before.phoneAddress !== after.phoneAddress) changes.phoneAddress = after.phoneAddress;
    if (Object.keys(changes).length === 0 || after.draft) return;
    try {
      await this.options.queue.send(EVENT_CHANGED_JOB, { eventId: after.id, changes });
    } catch (err) {
      this.options.logger.error({ err, eventId: after.id }, 'could not queue the e-mails of an event change');
    }
  }

  /** The handlers of this module's jobs (worker and all roles). */
  async registerWorkers(): Promise<void> {
    await this.options.queue.work<{ eventId: string; changes: EventChanges }>(
      EVENT_CHANGED_JOB,
      async (job) => {
        const event = await this.eventById(job.data.eventId);
        if (event) await this.options.mails.eventChanged(event, job.data.changes);
      },
    );
  }

  /**
   * Whether profile `actorId` manages `event`: its organizer, one of its moderating participants, or
   * a moderator of the group the event is on behalf of (§2.2).
   */
  async canManage(
    actorId: string,
    event: Pick<EventRow, 'id' | 'organizerActorId' | 'attributedToId'>,
  ): Promise<boolean> {
    return canManageEvent(this.options.sequelize, actorId, event);
  }

  async byId(id: string, transaction?: Transaction): Promise<ParticipantRow | null> {
    const [row] = await this.options.sequelize.query<ParticipantRow>(
      `SELECT ${PARTICIPANT_COLUMNS} FROM participants p WHERE p.id = :id`,
      { type: QueryTypes.SELECT, transaction, replacements: { id } },
    );
    return row ?? null;
  }

  /** An event by id, whatever its state (participations refer to it). */
  async eventById(id: string, transaction?: Transaction): Promise<EventRow | null> {
    const [row] = await this.options.sequelize.query<EventRow>(
      `SELECT ${EVENT_COLUMNS} FROM events e WHERE e.id = :id`,
      { type: QueryTypes.SELECT, transaction, replacements: { id } },
    );
    return row ?? null;
  }

  /** The role change under the capacity lock: a new PARTICIPANT must fit. */
  private async changeRole(
    id: string,
    eventId: string,
    role: ParticipantRole,
    expectedRole?: ParticipantRole,
  ): Promise<ParticipantRow> {
    return this.options.sequelize.transaction(async (transaction) => {
      const capacity = await this.lockCapacity(eventId, transaction);
      const current = await this.byId(id, transaction);
      if (!current) throw new NotFound(PARTICIPATION_MESSAGES.participantNotFound, REFUSAL);
      // Another request changed it since it was read: answer as if it came first.
      if (expectedRole !== undefined && current.role !== expectedRole) {
        throw new BadInput(PARTICIPATION_MESSAGES.invalidToken, REFUSAL);
      }
      if (current.role === role) throw new BadInput(PARTICIPATION_MESSAGES.alreadyRole(role), REFUSAL);
      if (role === 'PARTICIPANT' && capacity.full) throw new BadInput(PARTICIPATION_MESSAGES.full, REFUSAL);
      const [row] = await this.options.sequelize.query<ParticipantRow>(
        `UPDATE participants p SET role = :role, updated_at = now() WHERE p.id = :id RETURNING ${PARTICIPANT_COLUMNS}`,
        { type: QueryTypes.SELECT, transaction, replacements: { id, role } },
      );
      return row!;
    });
  }

  /**
   * Locks the event's counts until the transaction ends, so joins and approvals of one event are
   * counted one after the other; `full` when PARTICIPANTs reached the event's maximum (0: none).
   */
  private async lockCapacity(eventId: string, transaction: Transaction): Promise<{ full: boolean }> {
    const [row] = await this.options.sequelize.query<{ participant: number; maximum: number | null }>(
      `SELECT s.participant, (e.options->>'maximumAttendeeCapacity')::int AS maximum
       FROM event_participant_stats s JOIN events e ON e.id = s.event_id
       WHERE s.event_id = :eventId FOR UPDATE OF s`,
      { type: QueryTypes.SELECT, transaction, replacements: { eventId } },
    );
    if (!row) throw new NotFound(PARTICIPATION_MESSAGES.eventMissing(eventId), REFUSAL);
    const maximum = row.maximum ?? 0;
    return { full: maximum > 0 && row.participant >= maximum };
  }

  private async hasParticipation(
    eventId: string,
    actorId: string,
    email: string | null,
    transaction: Transaction,
  ): Promise<boolean> {
    const [row] = await this.options.sequelize.query(
      `SELECT 1 FROM participants WHERE event_id = :eventId AND actor_id = :actorId
         AND (CASE WHEN :email::text IS NULL THEN email IS NULL ELSE lower(email) = lower(:email) END)`,
      { type: QueryTypes.SELECT, transaction, replacements: { eventId, actorId, email } },
    );
    return row !== undefined;
  }

  private async insert(
    values: {
      eventId: string;
      actorId: string;
      role: ParticipantRole;
      message: string | null;
      locale: string | null;
      timezone: string | null;
      email: string | null;
      confirmationToken: string | null;
      cancellationToken: string | null;
      /** The Join's id, for a remote actor's participation. */
      url?: string | null;
    },
    transaction: Transaction,
  ): Promise<ParticipantRow> {
    const [row] = await this.options.sequelize.query<ParticipantRow>(
      `INSERT INTO participants AS p (event_id, actor_id, role, message, locale, timezone, email,
         confirmation_token, cancellation_token, url)
       VALUES (:eventId, :actorId, :role, :message, :locale, :timezone, :email, :confirmationToken,
         :cancellationToken, :url)
       RETURNING ${PARTICIPANT_COLUMNS}`,
      { type: QueryTypes.SELECT, transaction, replacements: { url: null, ...values } },
    );
    return row!;
  }

  /** A published event that exists, or the reference's "Event with this ID … doesn't exist". */
  private async joinableEvent(eventId: string): Promise<EventRow> {
    const event = await this.existingEvent(eventId);
    if (event.draft) throw new NotFound(PARTICIPATION_MESSAGES.eventMissing(eventId), REFUSAL);
    return event;
  }

  private async existingEvent(eventId: string): Promise<EventRow> {
    const event = isRowId(eventId) ? await this.eventById(eventId) : null;
    if (!event) throw new NotFound(PARTICIPATION_MESSAGES.eventMissing(eventId), REFUSAL);
    return event;
  }

  private async ownsProfile(user: SessionUser, actorId: string): Promise<boolean> {
    const actor = isRowId(actorId) ? await this.options.actors.findById(actorId) : null;
    return actor !== null && actor.userId === user.id && actor.type === 'Person' && !actor.suspended;
  }

  /** After an approval or a rejection: the subscription and the participant's e-mail. */
  private async told(participant: ParticipantRow, event: EventRow): Promise<void> {
    if (participant.role !== 'PARTICIPANT' && participant.role !== 'REJECTED') return;
    await this.publish(participant);
    await this.options.mails.decided(participant.id, event, participant.role);
  }

  private publish(participant: ParticipantRow): Promise<void> {
    return publishParticipationChange(this.options.pubsub, this.options.logger, {
      personId: participant.actorId,
      eventId: participant.eventId,
      participantId: participant.id,
      role: participant.role,
    });
  }
}

/** FREE events accept at once; every other kind waits for the organizer. */
function defaultRole(event: Pick<EventRow, 'joinOptions'>): ParticipantRole {
  return event.joinOptions === 'FREE' ? 'PARTICIPANT' : 'NOT_APPROVED';
}

const ENTITIES: Record<string, string> = {
  '&amp;': '&',
  '&lt;': '<',
  '&gt;': '>',
  '&quot;': '"',
  '&#39;': "'",
};

/** A participant's message is plain text: tags (and script contents) are dropped, as the reference strips them. */
function plainText(message: string | null | undefined): string | null {
  if (message === null || message === undefined) return null;
  const text = sanitizeHtml(message, { allowedTags: [], allowedAttributes: {} })
    .replace(/&(?:amp|lt|gt|quot|#39);/g, (entity) => ENTITIES[entity]!)
    .trim();
  return text === '' ? null : text;
}
