import { randomUUID } from 'node:crypto';
import { BadInput, Forbidden, isUuid, logFailure, type Logger, NotFound, type PubSub } from '@agora/core';
import {
  ACTIVITY_ACCEPT,
  ACTOR_TYPES,
  EVENTS_LD_CONTEXT,
  FetchError,
  RemoteActorError,
  idOf,
  sameOrigin,
  typeOf,
  type Actor,
  type ActorStore,
  type Federation,
  type InboxContext,
} from '@agora/federation';
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import { COMMENT_COLUMNS, type CommentRow } from '../modules/comments/comment-row.js';
import {
  ADDRESS_COLUMNS,
  EVENT_COLUMNS,
  type AddressRow,
  type EventRow,
} from '../modules/events/event-row.js';
import { replaceAddress } from '../modules/events/address-writes.js';
import { setTagsOf } from '../modules/events/event-tags.js';
import type { MediaService } from '../modules/media/media.service.js';
import type { ParticipantRow } from '../modules/participations/participant-row.js';
import {
  publishParticipationChange,
  type ParticipationChange,
} from '../modules/participations/participation-changes.js';
import {
  PARTICIPATION_MESSAGES,
  type ParticipationHooks,
  type ParticipationService,
} from '../modules/participations/participation.service.js';
import {
  commentObject,
  deleteActivity,
  eventObject,
  withContext,
  wrapActivity,
  type EventDocumentSource,
} from './event-objects.js';
import {
  parseRemoteEvent,
  parseRemoteNote,
  type RemoteEventValues,
  type RemoteNoteValues,
} from './remote-objects.js';

export interface EventFederationOptions {
  sequelize: Sequelize;
  actors: ActorStore;
  federation: Federation;
  media: MediaService;
  logger: Logger;
  /** Where participation changes are told to subscribers. */
  pubsub: PubSub;
  publicUrl: string;
  clock?: () => Date;
}

/** A stored object served by content negotiation: the document, or where a remote one lives. */
export type ServedObject = { document: Record<string, unknown> } | { redirect: string };

/**
 * Events and comments over ActivityPub (not-shown.md §5): committed local writes become
 * Create/Update/Delete of `Event` and `Note` and Join/Accept/Reject/Leave, delivered through the one
 * pipeline; the inbox stores remote events and comments and answers remote joins; `interact` fetches
 * an object by URL through the guarded client.
 */
export class EventFederation {
  private readonly logger: Logger;
  private readonly clock: () => Date;

  constructor(private readonly options: EventFederationOptions) {
    this.logger = options.logger.child({ component: 'event-federation' });
    this.clock = options.clock ?? (() => new Date());
  }

  // ---- Outbound: committed local writes -------------------------------------------------------

  /** A local event became visible: Create to its organizer's followers and its remote participants. */
  eventPublished(event: EventRow): Promise<void> {
    return this.safely('event published', async () => {
      if (!federates(event)) return;
      await this.sendEvent('Create', event);
    });
  }

  /** After an update: Update when it was already out, Create when it just became public, Delete when it left. */
  eventUpdated(before: EventRow, after: EventRow): Promise<void> {
    return this.safely('event updated', async () => {
      if (federates(after)) await this.sendEvent(federates(before) ? 'Update' : 'Create', after);
      else if (federates(before)) await this.sendEventDeletion(before);
    });
  }

  /**
   * Before a deletion, who must hear of it (its remote participants are gone after it); the returned
   * step sends the Delete once the deletion committed.
   */
  async eventDeleting(event: EventRow): Promise<() => Promise<void>> {
    if (!federates(event)) return async () => {};
    let participants: string[] = [];
    try {
      participants = await this.remoteParticipants(event.id);
    } catch (err) {
      this.logger.error({ err }, 'could not read the participants of a deleted event');
    }
    return () => this.safely('event deleted', () => this.sendEventDeletion(event, participants));
  }

  /** A local comment's Note (or its tombstone), to wherever its event's audience is. */
  commentChanged(
    change: 'created' | 'updated' | 'deleted',
    comment: CommentRow,
    before: CommentRow | null,
  ): Promise<void> {
    return this.safely(`comment ${change}`, async () => {
      if (!comment.local || !comment.eventId) return;
      const authorId = change === 'deleted' ? before?.actorId : comment.actorId;
      const event = await this.eventById(comment.eventId);
      if (!authorId || !event || !eventIsOut(event)) return;
      const author = await this.options.actors.findById(authorId);
      if (!author?.local) return;
      const recipients = await this.remoteParticipants(event.id);
      if (!event.local) recipients.push(event.organizerActorId);
      const parent = comment.inReplyToCommentId ? await this.commentById(comment.inReplyToCommentId) : null;
      if (parent?.actorId && !parent.local) recipients.push(parent.actorId);
      let activity: Record<string, unknown>;
      if (change === 'deleted') {
        activity = deleteActivity(comment.url, author, comment.deletedAt ?? this.clock(), 'Note');
      } else {
        const note = commentObject({ comment, author, inReplyTo: parent?.url ?? event.url });
        activity = wrapActivity(change === 'created' ? 'Create' : 'Update', note, author.uri, this.clock());
      }
      await this.options.federation.delivery.deliver(activity, {
        senderActorId: author.id,
        recipients,
        followersOf: author.id,
      });
    });
  }

  /** Join, Accept, Reject and Leave of participations, for the participations service. */
  participationHooks(): ParticipationHooks {
    return {
      joined: (participant, event) =>
        this.safely('join', async () => {
          if (event.local) return;
          await this.sendJoin(participant, event);
        }),
      roleChanged: (participant, event) =>
        this.safely('participation decided', async () => {
          if (!event.local) return;
          if (participant.role === 'PARTICIPANT') await this.answerJoin('Accept', participant, event);
          if (participant.role === 'REJECTED') await this.answerJoin('Reject', participant, event);
        }),
      left: (left) =>
        this.safely('leave', async () => {
          if (left.event.local) return;
          const [actor, organizer] = await Promise.all([
            this.options.actors.findById(left.actorId),
            this.options.actors.findById(left.event.organizerActorId),
          ]);
          if (!actor?.local || !organizer || organizer.local) return;
          await this.options.federation.delivery.deliver(
            {
              '@context': EVENTS_LD_CONTEXT,
              id: `${this.options.publicUrl}/leave/event/${left.id}`,
              type: 'Leave',
              actor: actor.uri,
              object: left.event.url,
              to: [organizer.uri],
              cc: [],
            },
            { senderActorId: actor.id, recipients: [organizer.id] },
          );
        }),
    };
  }

  private async sendEvent(type: 'Create' | 'Update', event: EventRow): Promise<void> {
    const source = await this.eventSource(event);
    const object = eventObject(source, this.options.publicUrl);
    const activity = wrapActivity(type, object, source.organizer.uri, this.clock());
    const recipients = await this.remoteParticipants(event.id);
    // not-shown.md §5: public Creates also go to the instances that follow ours (the relay's followers).
    if (type === 'Create' && event.visibility === 'PUBLIC') recipients.push(...(await this.relayFollowers()));
    await this.options.federation.delivery.deliver(activity, {
      senderActorId: event.organizerActorId,
      recipients,
      followersOf: event.attributedToId ?? event.organizerActorId,
    });
  }

  /** Remote actors (instances) whose follow of the instance actor was accepted. */
  private async relayFollowers(): Promise<string[]> {
    const relay = await this.options.federation.instanceActor();
    const rows = await this.options.sequelize.query<{ actorId: string }>(
      `SELECT f.actor_id::text AS "actorId" FROM follows f
        WHERE f.target_actor_id = :relayId AND f.accepted_at IS NOT NULL`,
      { type: QueryTypes.SELECT, replacements: { relayId: relay.id } },
    );
    return rows.map((row) => row.actorId);
  }

  private async sendEventDeletion(event: EventRow, participants?: string[]): Promise<void> {
    const organizer = await this.options.actors.findById(event.organizerActorId);
    if (!organizer) return;
    await this.options.federation.delivery.deliver(
      deleteActivity(event.url, organizer, this.clock(), 'Event'),
      {
        senderActorId: organizer.id,
        recipients: participants ?? (await this.remoteParticipants(event.id)),
        followersOf: event.attributedToId ?? organizer.id,
      },
    );
  }

  /** A local profile's Join of a remote event, to the event's organizer; its id is the participation's url. */
  private async sendJoin(participant: ParticipantRow, event: EventRow): Promise<void> {
    const [actor, organizer] = await Promise.all([
      this.options.actors.findById(participant.actorId),
      this.options.actors.findById(event.organizerActorId),
    ]);
    if (!actor?.local || !organizer || organizer.local) return;
    const url = `${this.options.publicUrl}/join/event/${randomUUID()}`;
    await this.options.sequelize.query('UPDATE participants SET url = :url WHERE id = :id AND url IS NULL', {
      replacements: { url, id: participant.id },
    });
    await this.options.federation.delivery.deliver(
      {
        '@context': EVENTS_LD_CONTEXT,
        id: url,
        type: 'Join',
        actor: actor.uri,
        object: event.url,
        to: [organizer.uri],
        cc: [],
        ...(participant.message ? { participationMessage: participant.message } : {}),
      },
      { senderActorId: actor.id, recipients: [organizer.id] },
    );
  }

  /** The organizer's Accept or Reject of a remote participant's Join (id `/accept/join/<participant id>`). */
  private async answerJoin(
    type: 'Accept' | 'Reject',
    participant: ParticipantRow,
    event: EventRow,
  ): Promise<void> {
    const [actor, organizer] = await Promise.all([
      this.options.actors.findById(participant.actorId),
      this.options.actors.findById(event.organizerActorId),
    ]);
    if (!actor || actor.local || !organizer?.local) return;
    const [row] = await this.options.sequelize.query<{ url: string | null }>(
      'SELECT url FROM participants WHERE id = :id',
      { type: QueryTypes.SELECT, replacements: { id: participant.id } },
    );
    await this.options.federation.delivery.deliver(
      {
        '@context': EVENTS_LD_CONTEXT,
        id: `${this.options.publicUrl}/${type.toLowerCase()}/join/${participant.id}`,
        type,
        actor: organizer.uri,
        object: row?.url ?? { type: 'Join', actor: actor.uri, object: event.url },
        to: [actor.uri],
        cc: [],
      },
      { senderActorId: organizer.id, recipients: [actor.id] },
    );
  }

  // ---- Inbound: the inbox's handlers -----------------------------------------------------------

  /** Adds the handlers of events, comments and participation to the inbox (the composition root calls it once). */
  registerInbox(participations: ParticipationService): void {
    const inbox = this.options.federation.inbox;
    const upsertEvent = (context: InboxContext) => this.receiveEvent(context);
    const upsertNote = (context: InboxContext) => this.receiveNote(context);
    inbox.on('Create:Event', upsertEvent).on('Update:Event', upsertEvent);
    inbox.on('Create:Note', upsertNote).on('Update:Note', upsertNote);
    const remove = (context: InboxContext) => this.receiveDelete(context);
    // A Delete names its object by id or as a Tombstone (or the deleted object itself).
    for (const key of ['Delete', 'Delete:Tombstone', 'Delete:Event', 'Delete:Note']) inbox.on(key, remove);
    inbox.on('Join', (context) => this.receiveJoin(context, participations));
    inbox.on('Leave', async ({ activity, signer }) => {
      const event = await this.localEventByUrl(idOf(activity.object));
      if (event) await participations.leaveFromRemote(signer.id, event.id);
    });
    const decided = (role: 'PARTICIPANT' | 'REJECTED') => (context: InboxContext) =>
      this.receiveDecision(context, role);
    // `Accept` also has the generic (Follow) handler: both run, each finds only its own.
    inbox.on('Accept', decided('PARTICIPANT')).on('Accept:Join', decided('PARTICIPANT'));
    inbox.on('Reject', decided('REJECTED')).on('Reject:Join', decided('REJECTED'));
  }

  private async receiveEvent({ activity, signer }: InboxContext): Promise<void> {
    const object = activity.object as Record<string, unknown>;
    const parsed = parseRemoteEvent(object);
    if (!parsed.ok)
      return void this.logger.info({ reason: parsed.reason, id: idOf(object) }, 'ignored an event');
    const organizer = await this.organizerOf(parsed.value, signer);
    if (!organizer) {
      return void this.logger.info(
        { id: parsed.value.url, signer: signer.uri },
        'event not attributed to its signer',
      );
    }
    await this.storeRemoteEvent(parsed.value, organizer);
  }

  /**
   * Who organizes a received event: its `attributedTo` (or `actor`) must be the signer; `actor` may
   * name another actor of the signer's instance (a group's member organizing for it).
   */
  private async organizerOf(values: RemoteEventValues, signer: Actor): Promise<Actor | null> {
    if (values.attributedToUri !== signer.uri && values.actorUri !== signer.uri) return null;
    if (!values.actorUri || values.actorUri === signer.uri) return signer;
    if (!sameOrigin(values.actorUri, signer.uri)) return null;
    return this.resolveActor(values.actorUri);
  }

  /** Inserts or updates a remote event by its url (a local event is never overwritten); returns it. */
  async storeRemoteEvent(values: RemoteEventValues, organizer: Actor): Promise<EventRow | null> {
    const { sequelize } = this.options;
    // Our own URLs and profiles are never a peer's to describe.
    if (organizer.local || sameOrigin(values.url, this.options.publicUrl)) return null;
    const id = await sequelize.transaction(async (transaction) => {
      const [existing] = await sequelize.query<{
        id: string;
        local: boolean;
        organizerActorId: string;
        physicalAddressId: string | null;
      }>(
        `SELECT id::text AS id, local, organizer_actor_id::text AS "organizerActorId",
                physical_address_id::text AS "physicalAddressId"
           FROM events WHERE url = :url FOR UPDATE`,
        { type: QueryTypes.SELECT, transaction, replacements: { url: values.url } },
      );
      if (existing && (existing.local || existing.organizerActorId !== organizer.id)) return null;
      const addressId = await this.storeAddress(existing?.physicalAddressId ?? null, values, transaction);
      const now = this.clock();
      const published =
        values.publishedAt && values.publishedAt.getTime() < now.getTime() ? values.publishedAt : now;
      const columns = {
        title: values.title,
        description: values.description,
        beginsOn: values.beginsOn,
        endsOn: values.endsOn,
        status: values.status,
        visibility: values.visibility,
        joinOptions: values.joinOptions,
        category: values.category,
        language: values.language,
        options: JSON.stringify(values.options),
        metadata: JSON.stringify(values.metadata),
        externalParticipationUrl: values.externalParticipationUrl,
        onlineAddress: values.onlineAddress,
        phoneAddress: values.phoneAddress,
        addressId,
      };
      let eventId: string;
      if (existing) {
        await sequelize.query(
          `UPDATE events SET title = :title, description = :description, begins_on = :beginsOn,
             ends_on = :endsOn, status = :status, visibility = :visibility, join_options = :joinOptions,
             category = :category, language = :language, options = :options, metadata = :metadata,
             external_participation_url = :externalParticipationUrl, online_address = :onlineAddress,
             phone_address = :phoneAddress, physical_address_id = :addressId, updated_at = now()
           WHERE id = :id`,
          { transaction, replacements: { ...columns, id: existing.id } },
        );
        eventId = existing.id;
      } else {
        const uuid = await this.freeUuid(values.uuid, transaction);
        const [inserted] = await sequelize.query<{ id: string }>(
          `INSERT INTO events (uuid, url, local, title, description, begins_on, ends_on, status, visibility,
             join_options, draft, organizer_actor_id, category, language, options, metadata,
             external_participation_url, online_address, phone_address, publish_at, published_at,
             physical_address_id)
           VALUES (:uuid, :url, false, :title, :description, :beginsOn, :endsOn, :status, :visibility,
             :joinOptions, false, :organizerId, :category, :language, :options, :metadata,
             :externalParticipationUrl, :onlineAddress, :phoneAddress, :published, :published, :addressId)
           RETURNING id::text AS id`,
          {
            type: QueryTypes.SELECT,
            transaction,
            replacements: { ...columns, uuid, url: values.url, organizerId: organizer.id, published },
          },
        );
        eventId = inserted!.id;
      }
      await setTagsOf(this.options.sequelize, 'event', eventId, values.tags, transaction);
      return eventId;
    });
    return id === null ? null : this.eventById(id);
  }

  /** The event's own address row, changed in place, created, or removed when the peer gives none. */
  private async storeAddress(
    currentId: string | null,
    values: RemoteEventValues,
    transaction: Transaction,
  ): Promise<string | null> {
    const { sequelize } = this.options;
    if (values.address) return replaceAddress(sequelize, currentId, values.address, transaction);
    if (currentId !== null) {
      await sequelize.query('UPDATE events SET physical_address_id = NULL WHERE physical_address_id = :id', {
        transaction,
        replacements: { id: currentId },
      });
      await sequelize.query('DELETE FROM addresses WHERE id = :id', {
        transaction,
        replacements: { id: currentId },
      });
    }
    return null;
  }

  /** The peer's uuid when it is free here (event pages keep their address), else a new one. */
  private async freeUuid(wanted: string | null, transaction: Transaction): Promise<string> {
    if (wanted) {
      const [taken] = await this.options.sequelize.query('SELECT 1 FROM events WHERE uuid = :uuid', {
        type: QueryTypes.SELECT,
        transaction,
        replacements: { uuid: wanted },
      });
      if (!taken) return wanted;
    }
    return randomUUID();
  }

  private async receiveNote({ activity, signer }: InboxContext): Promise<void> {
    const object = activity.object as Record<string, unknown>;
    // A Note with a `context` is a group discussion's message: GroupContentFederation's.
    if (typeof object === 'object' && object !== null && object.context != null) return;
    const parsed = parseRemoteNote(object);
    if (!parsed.ok)
      return void this.logger.info({ reason: parsed.reason, id: idOf(object) }, 'ignored a note');
    if (parsed.value.attributedToUri !== signer.uri) {
      return void this.logger.info(
        { id: parsed.value.url, signer: signer.uri },
        'note not attributed to its signer',
      );
    }
    await this.storeRemoteComment(parsed.value, signer);
  }

  /**
   * A remote comment under an event known here (by the event's or the parent comment's url), with the
   * event's rules: not on drafts or private events, not on CLOSED events unless by their organizer.
   */
  async storeRemoteComment(values: RemoteNoteValues, author: Actor): Promise<CommentRow | null> {
    const { sequelize } = this.options;
    if (author.local || sameOrigin(values.url, this.options.publicUrl)) return null;
    const [existing] = await sequelize.query<CommentRow>(
      `SELECT ${COMMENT_COLUMNS} FROM comments c WHERE c.url = :url`,
      { type: QueryTypes.SELECT, replacements: { url: values.url } },
    );
    if (existing) {
      if (existing.local || existing.actorId !== author.id || existing.deletedAt) return null;
      const [updated] = await sequelize.query<CommentRow>(
        `UPDATE comments AS c SET text = :text, updated_at = now() WHERE c.id = :id RETURNING ${COMMENT_COLUMNS}`,
        { type: QueryTypes.SELECT, replacements: { id: existing.id, text: values.text } },
      );
      return updated ?? null;
    }
    if (!values.inReplyTo) return null;
    let event = await this.eventByUrl(values.inReplyTo);
    let parent: CommentRow | null = null;
    if (!event) {
      const [found] = await sequelize.query<CommentRow>(
        `SELECT ${COMMENT_COLUMNS} FROM comments c WHERE c.url = :url`,
        { type: QueryTypes.SELECT, replacements: { url: values.inReplyTo } },
      );
      parent = found ?? null;
      event = parent?.eventId ? await this.eventById(parent.eventId) : null;
    }
    // A reply to an event not known yet: fetched from its origin (guarded), as interact does.
    if (!event && !parent) {
      const found = await this.interact(values.inReplyTo).catch(nullWhenNotFound);
      event = found && !isActor(found) ? found : null;
    }
    if (!event || event.draft || event.visibility === 'PRIVATE') {
      this.logger.info({ id: values.url, inReplyTo: values.inReplyTo }, 'note replies to nothing known');
      return null;
    }
    const moderation = String(event.options['commentModeration'] ?? 'ALLOW_ALL');
    if (moderation === 'CLOSED' && author.id !== event.organizerActorId) return null;
    const uuid = values.uuid ?? randomUUID();
    const [row] = await sequelize.query<CommentRow>(
      `INSERT INTO comments AS c (uuid, url, text, actor_id, event_id, in_reply_to_comment_id, origin_comment_id,
         visibility, local, published_at)
       SELECT CASE WHEN EXISTS (SELECT 1 FROM comments WHERE uuid = :uuid) THEN gen_random_uuid() ELSE :uuid::uuid END,
         :url, :text, :actorId, :eventId, :inReplyTo, :origin, :visibility, false, LEAST(COALESCE(:publishedAt, now()), now())
       ON CONFLICT (url) DO NOTHING
       RETURNING ${COMMENT_COLUMNS}`,
      {
        type: QueryTypes.SELECT,
        replacements: {
          uuid,
          url: values.url,
          text: values.text,
          actorId: author.id,
          eventId: event.id,
          inReplyTo: parent?.id ?? null,
          origin: parent ? (parent.originCommentId ?? parent.id) : null,
          visibility: values.visibility,
          publishedAt: values.publishedAt,
        },
      },
    );
    return row ?? null;
  }

  /** A remote actor's Delete of its own event (the row goes) or comment (a tombstone stays). */
  private async receiveDelete({ activity, signer }: InboxContext): Promise<void> {
    const id = idOf(activity.object);
    if (!id || id === signer.uri) return;
    const { sequelize } = this.options;
    await sequelize.query(
      `DELETE FROM events WHERE url = :id AND NOT local AND (organizer_actor_id = :signer OR attributed_to_id = :signer)`,
      { replacements: { id, signer: signer.id } },
    );
    await sequelize.query(
      `UPDATE comments SET text = NULL, actor_id = NULL, deleted_at = now(), updated_at = now()
        WHERE url = :id AND NOT local AND actor_id = :signer AND deleted_at IS NULL AND discussion_id IS NULL`,
      { replacements: { id, signer: signer.id } },
    );
  }

  /**
   * A remote Join of a local event: FREE events accept at once (Accept id `/accept/join/<participant
   * id>`), RESTRICTED ones wait for the organizer; a full or closed event answers Reject.
   */
  private async receiveJoin(
    { activity, signer }: InboxContext,
    participations: ParticipationService,
  ): Promise<void> {
    const event = await this.localEventByUrl(idOf(activity.object));
    if (!event) return;
    const url = typeof activity.id === 'string' ? activity.id : null;
    const message = typeof activity.participationMessage === 'string' ? activity.participationMessage : null;
    try {
      const { participant } = await participations.joinFromRemote(signer.id, event.id, { url, message });
      if (participant.role === 'PARTICIPANT') await this.answerJoin('Accept', participant, event);
    } catch (error) {
      if (!(error instanceof BadInput) && !(error instanceof NotFound) && !(error instanceof Forbidden))
        throw error;
      this.logger.info(
        { event: event.url, actor: signer.uri, reason: (error as Error).message },
        'refused a join',
      );
      if (error instanceof BadInput && error.message === PARTICIPATION_MESSAGES.alreadyParticipant) return;
      await this.rejectJoin(signer, event, url);
    }
  }

  private async rejectJoin(actor: Actor, event: EventRow, joinUrl: string | null): Promise<void> {
    const organizer = await this.options.actors.findById(event.organizerActorId);
    if (!organizer?.local) return;
    await this.options.federation.delivery.deliver(
      {
        '@context': EVENTS_LD_CONTEXT,
        id: `${this.options.publicUrl}/reject/join/${randomUUID()}`,
        type: 'Reject',
        actor: organizer.uri,
        object: joinUrl ?? { type: 'Join', actor: actor.uri, object: event.url },
        to: [actor.uri],
        cc: [],
      },
      { senderActorId: organizer.id, recipients: [actor.id] },
    );
  }

  /** The organizer of a remote event answered a local profile's Join. */
  private async receiveDecision(
    { activity, signer }: InboxContext,
    role: 'PARTICIPANT' | 'REJECTED',
  ): Promise<void> {
    const object = activity.object;
    const joinId = idOf(object);
    const inline = typeOf(object) === 'Join' ? (object as Record<string, unknown>) : null;
    if (!joinId && !inline) return;
    const { sequelize } = this.options;
    // By the Join's id, else (an inline Join without one) by who joined what; only the event's organizer decides.
    const changed = await sequelize.query<ParticipationChange>(
      `UPDATE participants p SET role = :role, updated_at = now()
         FROM events e, actors a
        WHERE e.id = p.event_id AND a.id = p.actor_id AND NOT e.local
          AND (e.organizer_actor_id = :signer OR e.attributed_to_id = :signer)
          AND p.role IN ('NOT_APPROVED', 'PARTICIPANT') AND p.role <> :role
          AND (p.url = :joinId OR (:joinId::text IS NULL AND a.uri = :actorUri AND e.url = :eventUrl))
        RETURNING p.actor_id::text AS "personId", p.event_id::text AS "eventId", p.id::text AS "participantId",
          p.role`,
      {
        type: QueryTypes.SELECT,
        replacements: {
          role,
          signer: signer.id,
          joinId,
          actorUri: inline ? idOf(inline.actor) : null,
          eventUrl: inline ? idOf(inline.object) : null,
        },
      },
    );
    // `eventPersonParticipationChanged` fires as it does for a local organizer's decision (not-shown.md §3).
    for (const change of changed) await publishParticipationChange(this.options.pubsub, this.logger, change);
  }

  // ---- Content negotiation and interact -------------------------------------------------------

  /** `/events/:uuid` as ActivityPub: public and unlisted published local events; remote ones redirect. */
  async eventDocument(uuid: string): Promise<ServedObject | null> {
    if (!isUuid(uuid)) return null;
    const event = await this.one<EventRow>(`SELECT ${EVENT_COLUMNS} FROM events e WHERE e.uuid = :uuid`, {
      uuid,
    });
    if (!event) return null;
    if (!event.local) return { redirect: event.url };
    if (!federates(event)) return null;
    return { document: withContext(eventObject(await this.eventSource(event), this.options.publicUrl)) };
  }

  /** `/comments/:uuid` as ActivityPub: comments under events others may see (tombstones included). */
  async commentDocument(uuid: string): Promise<ServedObject | null> {
    if (!isUuid(uuid)) return null;
    const comment = await this.one<CommentRow>(
      `SELECT ${COMMENT_COLUMNS} FROM comments c WHERE c.uuid = :uuid`,
      {
        uuid,
      },
    );
    if (!comment?.eventId) return null;
    if (!comment.local) return { redirect: comment.url };
    const event = await this.eventById(comment.eventId);
    if (
      !event ||
      !eventIsOut(event) ||
      (comment.visibility !== 'PUBLIC' && comment.visibility !== 'UNLISTED')
    )
      return null;
    const author = comment.actorId ? await this.options.actors.findById(comment.actorId) : null;
    const parent = comment.inReplyToCommentId ? await this.commentById(comment.inReplyToCommentId) : null;
    const document = commentObject({
      comment,
      author: author ?? { uri: this.options.publicUrl, followersUrl: null },
      inReplyTo: parent?.url ?? event.url,
    });
    return { document: withContext(document) };
  }

  /**
   * `interact(uri)`: an event known by that URL, else fetched from its origin through the guarded
   * client and stored (its organizer too). A group's URL answers the group (stored when remote, as
   * the reference web client opens a remote group); another actor's URL stores the actor, not found.
   */
  async interact(uri: string): Promise<EventRow | Actor> {
    const notFound = () => new NotFound('Record not found', { code: 'not_found' });
    if (!URL.canParse(uri) || !/^https?:$/.test(new URL(uri).protocol)) throw notFound();
    const known = await this.eventByUrl(uri);
    if (known) {
      if (known.local && !eventIsOut(known)) throw notFound();
      return known;
    }
    const actor = await this.options.actors.findByUri(uri);
    if (actor?.type === 'Group' && !actor.suspended) return actor;
    let document: Record<string, unknown>;
    let fetchedFrom: string;
    try {
      const response = await this.options.federation.fetch.get(uri, { headers: { accept: ACTIVITY_ACCEPT } });
      if (!response.ok) throw notFound();
      const body = response.json();
      if (typeof body !== 'object' || body === null || Array.isArray(body)) throw notFound();
      document = body as Record<string, unknown>;
      fetchedFrom = response.url;
    } catch (error) {
      if (error instanceof FetchError) throw notFound();
      throw error;
    }
    const id = idOf(document);
    // The document speaks for its own origin only: what answered must be where its id lives.
    if (!id || !sameOrigin(id, fetchedFrom)) throw notFound();
    const type = typeOf(document);
    if ((ACTOR_TYPES as readonly string[]).includes(type ?? '')) {
      const stored = await this.resolveActor(id);
      if (stored?.type === 'Group' && !stored.suspended) return stored;
      throw notFound();
    }
    if (type !== 'Event') throw notFound();
    const parsed = parseRemoteEvent(document);
    if (!parsed.ok) throw notFound();
    const organizerUri = parsed.value.actorUri ?? parsed.value.attributedToUri;
    if (!organizerUri || !sameOrigin(organizerUri, id)) throw notFound();
    const organizer = await this.resolveActor(organizerUri);
    if (!organizer) throw notFound();
    const stored = await this.storeRemoteEvent(parsed.value, organizer);
    if (!stored) throw notFound();
    return stored;
  }

  private async resolveActor(uri: string): Promise<Actor | null> {
    try {
      return await this.options.federation.remoteActors.resolve(uri);
    } catch (error) {
      if (error instanceof RemoteActorError || error instanceof FetchError) return null;
      throw error;
    }
  }

  // ---- Reads ------------------------------------------------------------------------------------

  /** What an event's document shows: organizer, group, tags, place, picture, contacts, count. */
  async eventSource(event: EventRow): Promise<EventDocumentSource> {
    const [source] = await this.eventSources([event]);
    return source!;
  }

  /**
   * The documents' sources of several events (a page of a group's events collection) in four queries
   * whatever their number: actors, tags/contacts/counts, addresses, pictures; in `events`' order.
   */
  async eventSources(events: readonly EventRow[]): Promise<EventDocumentSource[]> {
    if (events.length === 0) return [];
    const ids = (pick: (event: EventRow) => string | null | undefined) => [
      ...new Set(events.map(pick).filter((id): id is string => Boolean(id))),
    ];
    const actorIds = ids((event) => event.organizerActorId).concat(ids((event) => event.attributedToId));
    const addressIds = ids((event) => event.physicalAddressId);
    const pictureIds = ids((event) => event.pictureId);
    const select = <T extends object>(sql: string, replacements: Record<string, unknown>) =>
      this.options.sequelize.query<T>(sql, { type: QueryTypes.SELECT, replacements });
    const [actors, extras, addresses, pictures] = await Promise.all([
      this.options.actors.findByIds(actorIds),
      select<{
        id: string;
        tags: Array<{ slug: string; title: string }>;
        contacts: string[];
        participantCount: number;
      }>(
        `SELECT e.id::text AS id,
           (SELECT coalesce(json_agg(json_build_object('slug', t.slug, 'title', t.title) ORDER BY t.id), '[]')
              FROM events_tags et JOIN tags t ON t.id = et.tag_id WHERE et.event_id = e.id) AS tags,
           (SELECT coalesce(json_agg(a.uri ORDER BY c.position), '[]')
              FROM event_contacts c JOIN actors a ON a.id = c.actor_id WHERE c.event_id = e.id) AS contacts,
           coalesce((SELECT s.participant FROM event_participant_stats s WHERE s.event_id = e.id), 0)
             AS "participantCount"
         FROM events e WHERE e.id IN (:ids)`,
        { ids: events.map((event) => event.id) },
      ),
      addressIds.length
        ? select<AddressRow>(`SELECT ${ADDRESS_COLUMNS} FROM addresses a WHERE a.id IN (:ids)`, {
            ids: addressIds,
          })
        : Promise.resolve([]),
      pictureIds.length
        ? select<{ id: string; fileKey: string; contentType: string }>(
            `SELECT id::text AS id, file_key AS "fileKey", content_type AS "contentType" FROM media
              WHERE id IN (:ids)`,
            { ids: pictureIds },
          )
        : Promise.resolve([]),
    ]);
    const extraOf = new Map(extras.map((row) => [row.id, row]));
    const addressOf = new Map(addresses.map((row) => [String(row.id), row]));
    const pictureOf = new Map(pictures.map((row) => [row.id, row]));
    return events.map((event) => {
      const extra = extraOf.get(String(event.id));
      const picture = event.pictureId ? pictureOf.get(String(event.pictureId)) : undefined;
      return {
        event,
        organizer: actors.get(String(event.organizerActorId)) ?? {
          uri: this.options.publicUrl,
          followersUrl: null,
        },
        attributedTo: event.attributedToId ? (actors.get(String(event.attributedToId)) ?? null) : null,
        tags: extra?.tags ?? [],
        contacts: extra?.contacts ?? [],
        participantCount: extra?.participantCount ?? 0,
        address: event.physicalAddressId ? (addressOf.get(String(event.physicalAddressId)) ?? null) : null,
        picture: picture ? { url: this.options.media.url(picture), mediaType: picture.contentType } : null,
      };
    });
  }

  /** Remote actors taking part in an event (any role): they hear of its changes. */
  private async remoteParticipants(eventId: string): Promise<string[]> {
    const rows = await this.options.sequelize.query<{ actorId: string }>(
      `SELECT p.actor_id::text AS "actorId" FROM participants p JOIN actors a ON a.id = p.actor_id
        WHERE p.event_id = :eventId AND a.domain IS NOT NULL`,
      { type: QueryTypes.SELECT, replacements: { eventId } },
    );
    return rows.map((row) => row.actorId);
  }

  private eventById(id: string): Promise<EventRow | null> {
    return this.one<EventRow>(`SELECT ${EVENT_COLUMNS} FROM events e WHERE e.id = :id`, { id });
  }

  private eventByUrl(url: string): Promise<EventRow | null> {
    return this.one<EventRow>(`SELECT ${EVENT_COLUMNS} FROM events e WHERE e.url = :url`, { url });
  }

  private async localEventByUrl(url: string | null): Promise<EventRow | null> {
    const event = url ? await this.eventByUrl(url) : null;
    return event?.local && eventIsOut(event) ? event : null;
  }

  private commentById(id: string): Promise<CommentRow | null> {
    return this.one<CommentRow>(`SELECT ${COMMENT_COLUMNS} FROM comments c WHERE c.id = :id`, { id });
  }

  private async one<T extends object>(sql: string, replacements: Record<string, unknown>): Promise<T | null> {
    const [row] = await this.options.sequelize.query<T>(sql, { type: QueryTypes.SELECT, replacements });
    return row ?? null;
  }

  /** Federation follows a committed write: its failure is logged, never the request's. */
  private safely(what: string, run: () => Promise<void>): Promise<void> {
    return logFailure(this.logger, `federation of a ${what} failed`, run);
  }
}

function nullWhenNotFound(error: unknown): null {
  if (error instanceof NotFound) return null;
  throw error;
}

/** Others may see it: published, not a draft, public or unlisted. */
function eventIsOut(event: EventRow): boolean {
  return (
    !event.draft &&
    event.publishedAt !== null &&
    (event.visibility === 'PUBLIC' || event.visibility === 'UNLISTED')
  );
}

/** A local event that is out: drafts, private events and events still to publish never federate. */
function federates(event: EventRow): boolean {
  return event.local && eventIsOut(event);
}

/** `interact`'s answer is a group (an actor) or an event row. */
export function isActor(found: EventRow | Actor): found is Actor {
  return 'type' in found && found.type === 'Group';
}
