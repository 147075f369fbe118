import { randomUUID } from 'node:crypto';
import { isRowId } from '@agora/db';
import { BadInput, Forbidden, isUuid, type JobQueue, NotFound } from '@agora/core';
import type { SessionUser } from '@agora/auth';
import { sanitizeRemoteHtml, type ActorStore } from '@agora/federation';
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import type { ActingModerator } from '../action-logs/acting-moderator.js';
import type { ActionLogStore } from '../action-logs/action-log.store.js';
import type { MediaService, PictureChoice, StagedMedia } from '../media/media.service.js';
import { addEventCreator } from '../participations/event-creator.js';
import { checkEventInput, sanitizedOptions } from './event-checks.js';
import { eventLanguage } from './event-language.js';
import { EVENT_COLUMNS, LISTED_SQL, type EventMetadataEntry, type EventRow } from './event-row.js';
import { eventTags, setTagsOf } from './event-tags.js';
import { boundingBoxes, DEFAULT_RADIUS_KM, DISTANCE_SQL, geohashCenter, type LatLon } from './geo.js';
import { insertAddress, replaceAddress } from './address-writes.js';

/** The reference's texts (plain-string refusals there: `unknown_error`, status_code 500). */
export const EVENT_MESSAGES = {
  notFound: 'Event not found',
  organizerNotOwned: 'Organizer profile is not owned by the user',
  cannotEdit: "You can't edit this event.",
  cannotAttribute: "You can't attribute this event to this profile.",
  cannotDelete: 'You cannot delete this event',
  groupCreate: "Organizer profile doesn't have permission to create an event on behalf of this group",
  groupUpdate: "This profile doesn't have permission to update an event on behalf of this group",
  onlyGroups: 'Only groups can create events',
  maxLimit: 'events_max_limit_reached',
  // Field errors (code `validation`, 422), worded as the reference's changesets word theirs.
  contactNotFound: 'does not exist',
  badLocation: 'is not a geohash',
  badRadius: 'must be greater than 0',
} as const;

/** The queue of scheduled publications: one job per event and publication time. */
export const EVENT_JOBS = { publish: 'events.publish' } as const;

/** An event's place as given (the point already checked by the `Point` scalar). */
export interface AddressInput {
  originId?: string | null | undefined;
  street?: string | null | undefined;
  locality?: string | null | undefined;
  postalCode?: string | null | undefined;
  region?: string | null | undefined;
  country?: string | null | undefined;
  description?: string | null | undefined;
  type?: string | null | undefined;
  url?: string | null | undefined;
  timezone?: string | null | undefined;
  geom?: LatLon | null | undefined;
}

const REFUSAL = { code: 'unknown_error' } as const;
/** Root `events` refuses a limit of 100 or more (the reference's only cap). */
export const EVENTS_LIMIT_MAX = 99;

/** Everything a create or update may set; undefined leaves a value as it is. */
export interface EventInput {
  title?: string | undefined;
  description?: string | undefined;
  beginsOn?: Date | undefined;
  endsOn?: Date | null | undefined;
  status?: string | undefined;
  visibility?: string | undefined;
  joinOptions?: string | undefined;
  draft?: boolean | undefined;
  organizerActorId?: string | undefined;
  attributedToId?: string | null | undefined;
  category?: string | undefined;
  language?: string | undefined;
  options?: Record<string, unknown> | undefined;
  metadata?: EventMetadataEntry[] | undefined;
  externalParticipationUrl?: string | null | undefined;
  onlineAddress?: string | null | undefined;
  phoneAddress?: string | null | undefined;
  publishAt?: Date | null | undefined;
  tags?: string[] | undefined;
  /** null removes the address. */
  physicalAddress?: AddressInput | null | undefined;
  /** A staged upload or one of the caller's media; null removes the picture. */
  picture?: PictureChoice | null | undefined;
  /** Actor ids, in order. */
  contacts?: string[] | undefined;
}

export interface EventListQuery {
  page: number;
  limit: number;
  orderBy: 'BEGINS_ON' | 'INSERTED_AT' | 'UPDATED_AT';
  direction: 'ASC' | 'DESC';
  /** A geohash: only events whose place is within `radius` km of its centre. */
  location?: string | null | undefined;
  radius?: number | null | undefined;
  /** true: only long events; false: none; null: both. */
  longEvents?: boolean | null | undefined;
}

export interface EventServiceOptions {
  sequelize: Sequelize;
  actors: ActorStore;
  media: MediaService;
  queue: JobQueue;
  clock: () => Date;
  /** Where a moderator's deletion of someone else's event is logged. */
  actionLogs: ActionLogStore;
  /** Event URLs are `<publicUrl>/events/<uuid>`. */
  publicUrl: string;
  /** Events lasting longer are long events (`durationOfLongEvent`); 0 turns long events off. */
  longEventDays: number;
  /** Called once an update committed, with the event before and after it (participants are told). */
  afterUpdate?: (before: EventRow, after: EventRow) => Promise<void>;
  /**
   * The instance actor's URI (`/relay`): remote events are listed when their organizer's instance is
   * one it follows, as the reference lists local events and those of followed instances.
   */
  instanceActorUri?: string;
  /** Called once an event became visible (created published, or published later by its `publishAt`). */
  afterPublish?: (event: EventRow) => Promise<void>;
  /**
   * Called before a deletion with the event as it is (its participants still there); what it returns
   * runs once the deletion committed (federation sends the Delete to them).
   */
  beforeDelete?: (event: EventRow) => Promise<() => Promise<void>>;
  /** Group roles (the members module), for events on behalf of a group (§2.2); none: no group may be named. */
  groups?: EventGroupRoles;
  /** The instance's `only_groups_can_create_events` restriction. */
  onlyGroupsCanCreateEvents?: () => boolean;
}

/** What the events need to know of groups: who moderates them (and who belongs to them). */
export interface EventGroupRoles {
  /** Whether a profile is a moderator, administrator or creator of a group. */
  actorModerates(actorId: string, groupId: string): Promise<boolean>;
  /** The same for a user's default profile (the profile operations act as). */
  userModerates(userId: string, groupId: string): Promise<boolean>;
  /** Whether a user's default profile is a member of a group. */
  userIsMember(userId: string, groupId: string): Promise<boolean>;
}

const ORDER_COLUMNS = {
  BEGINS_ON: 'begins_on',
  INSERTED_AT: 'inserted_at',
  UPDATED_AT: 'updated_at',
} as const;

/** Local events, and those organized on instances the instance actor follows (accepted follows only). */
const LOCAL_OR_FOLLOWED_SQL = `(e.local OR e.organizer_actor_id IN (
  SELECT o.id FROM actors r
    JOIN follows f ON f.actor_id = r.id AND f.accepted_at IS NOT NULL
    JOIN actors t ON t.id = f.target_actor_id
    JOIN actors o ON lower(o.domain) = lower(t.domain)
   WHERE r.uri = :instanceActorUri))`;

const DAY_MS = 24 * 60 * 60 * 1000;

/** The rules of events: who organizes, what is stored, who reads drafts and who changes them. */
export class EventService {
  constructor(private readonly options: EventServiceOptions) {}

  /** Runs the scheduled publications on worker roles (a no-op on web processes, which only enqueue). */
  async registerWorkers(): Promise<void> {
    await this.options.queue.work<{ eventId: string }>(EVENT_JOBS.publish, async (job) => {
      await this.publishDue(job.data.eventId);
    });
  }

  async create(
    user: SessionUser,
    input: EventInput & { title: string; description: string; beginsOn: Date; organizerActorId: string },
  ): Promise<EventRow> {
    // A staged upload's files go when anything below refuses or fails.
    return this.options.media.withStaged(stagedOf(input.picture), async () => {
      await this.ownedProfile(user, input.organizerActorId, EVENT_MESSAGES.organizerNotOwned);
      if (!input.attributedToId && this.options.onlyGroupsCanCreateEvents?.()) {
        throw new Forbidden(EVENT_MESSAGES.onlyGroups, REFUSAL);
      }
      // Events on behalf of a group need the organizer to moderate it (§6.15).
      if (
        input.attributedToId &&
        !(await this.organizerModerates(input.organizerActorId, input.attributedToId))
      ) {
        throw new Forbidden(EVENT_MESSAGES.groupCreate, REFUSAL);
      }
      checkEventInput(input, input.beginsOn, input.endsOn ?? null);
      const contacts = await this.checkedContacts(input.contacts);
      const description = sanitizeRemoteHtml(input.description);
      const uuid = randomUUID();
      const draft = input.draft ?? false;
      const now = this.options.clock();
      const publishAt = input.publishAt ?? (draft ? null : now);
      const published = !draft && publishAt !== null && publishAt.getTime() <= now.getTime();
      // One transaction: a refusal or a failing insert leaves no event, tags, address or media behind.
      const row = await this.options.sequelize.transaction(async (transaction) => {
        const addressId = input.physicalAddress
          ? await insertAddress(this.options.sequelize, input.physicalAddress, transaction)
          : null;
        const pictureId = input.picture
          ? await this.pictureId(user, input.organizerActorId, input.picture, transaction)
          : null;
        const [inserted] = await this.options.sequelize.query<{ id: string }>(
          `INSERT INTO events (uuid, url, title, description, begins_on, ends_on, status, visibility,
             join_options, draft, organizer_actor_id, attributed_to_id, category, language, options, metadata,
             external_participation_url, online_address, phone_address, publish_at, published_at,
             physical_address_id, picture_id)
           VALUES (:uuid, :url, :title, :description, :beginsOn, :endsOn, :status, :visibility, :joinOptions,
             :draft, :organizerActorId, :attributedToId, :category, :language, :options, :metadata,
             :externalParticipationUrl, :onlineAddress, :phoneAddress, :publishAt, :publishedAt,
             :addressId, :pictureId)
           RETURNING id::text AS id`,
          {
            type: QueryTypes.SELECT,
            transaction,
            replacements: {
              uuid,
              url: `${this.options.publicUrl}/events/${uuid}`,
              title: input.title,
              description,
              beginsOn: input.beginsOn,
              endsOn: input.endsOn ?? null,
              status: input.status ?? 'CONFIRMED',
              visibility: input.visibility ?? 'PUBLIC',
              joinOptions: input.joinOptions ?? 'FREE',
              draft,
              organizerActorId: input.organizerActorId,
              attributedToId: input.attributedToId ?? null,
              category: input.category ?? 'MEETING',
              language: eventLanguage(input.language, input.title, description),
              options: JSON.stringify(sanitizedOptions(input.options ?? {})),
              metadata: JSON.stringify(input.metadata ?? []),
              externalParticipationUrl: input.externalParticipationUrl ?? null,
              onlineAddress: input.onlineAddress ?? null,
              phoneAddress: input.phoneAddress ?? null,
              publishAt,
              publishedAt: published ? now : null,
              addressId,
              pictureId,
            },
          },
        );
        await setTagsOf(
          this.options.sequelize,
          'event',
          inserted!.id,
          eventTags(input.tags ?? [], description),
          transaction,
        );
        await this.setContacts(inserted!.id, contacts, transaction);
        await addEventCreator(this.options.sequelize, inserted!.id, input.organizerActorId, transaction);
        return (await this.byId(inserted!.id, transaction))!;
      });
      await this.schedulePublication(row);
      if (row.publishedAt !== null) await this.options.afterPublish?.(row);
      return row;
    });
  }

  async update(user: SessionUser, eventId: string, input: EventInput): Promise<EventRow> {
    return this.options.media.withStaged(stagedOf(input.picture), async () => {
      const current = await this.findForWrite(eventId);
      if (!(await this.manages(user, current))) {
        throw new Forbidden(EVENT_MESSAGES.cannotEdit, REFUSAL);
      }
      if (input.organizerActorId !== undefined && input.organizerActorId !== current.organizerActorId) {
        await this.ownedProfile(user, input.organizerActorId, EVENT_MESSAGES.cannotAttribute);
      }
      if (
        input.attributedToId &&
        !(await this.organizerModerates(
          input.organizerActorId ?? current.organizerActorId,
          input.attributedToId,
        ))
      ) {
        throw new Forbidden(EVENT_MESSAGES.groupUpdate, REFUSAL);
      }
      const beginsOn = input.beginsOn ?? current.beginsOn;
      const endsOn = input.endsOn === undefined ? current.endsOn : input.endsOn;
      checkEventInput(input, beginsOn, endsOn);
      const contacts = input.contacts === undefined ? undefined : await this.checkedContacts(input.contacts);
      const description = input.description === undefined ? undefined : sanitizeRemoteHtml(input.description);
      const changes: Record<string, unknown> = {
        title: input.title,
        description,
        begins_on: input.beginsOn,
        ends_on: input.endsOn,
        status: input.status,
        visibility: input.visibility,
        join_options: input.joinOptions,
        draft: input.draft,
        organizer_actor_id: input.organizerActorId,
        attributed_to_id: input.attributedToId,
        category: input.category,
        // Omitted ("und", its default) means detected from the text as it will be.
        language:
          input.language === undefined && input.title === undefined && description === undefined
            ? undefined
            : eventLanguage(input.language, input.title ?? current.title, description ?? current.description),
        options:
          input.options === undefined
            ? undefined
            : JSON.stringify(sanitizedOptions({ ...current.options, ...input.options })),
        metadata: input.metadata === undefined ? undefined : JSON.stringify(input.metadata),
        external_participation_url: input.externalParticipationUrl,
        online_address: input.onlineAddress,
        phone_address: input.phoneAddress,
        ...this.publicationChanges(current, input.draft),
      };
      const row = await this.options.sequelize.transaction(async (transaction) => {
        if (input.physicalAddress !== undefined) {
          changes['physical_address_id'] = await this.replaceAddress(
            current.physicalAddressId,
            input.physicalAddress,
            transaction,
          );
        }
        if (input.picture !== undefined) {
          const organizer = input.organizerActorId ?? current.organizerActorId;
          changes['picture_id'] =
            input.picture === null ? null : await this.pictureId(user, organizer, input.picture, transaction);
        }
        const set = Object.entries(changes).filter(([, value]) => value !== undefined);
        await this.options.sequelize.query(
          `UPDATE events SET ${set.map(([column]) => `${column} = :${column}`).join(', ')}${set.length ? ', ' : ''}updated_at = now()
           WHERE id = :id`,
          { transaction, replacements: { ...Object.fromEntries(set), id: current.id } },
        );
        if (input.physicalAddress === null && current.physicalAddressId !== null) {
          await this.options.sequelize.query('DELETE FROM addresses WHERE id = :id', {
            transaction,
            replacements: { id: current.physicalAddressId },
          });
        }
        // New tags replace the old; a new description's hashtags join them.
        if (input.tags !== undefined || description !== undefined) {
          const given = input.tags ?? (await this.tagTitles(current.id, transaction));
          await setTagsOf(
            this.options.sequelize,
            'event',
            current.id,
            eventTags(given, description ?? current.description),
            transaction,
          );
        }
        if (contacts !== undefined) await this.setContacts(current.id, contacts, transaction);
        return (await this.byId(current.id, transaction))!;
      });
      await this.schedulePublication(row);
      await this.options.afterUpdate?.(current, row);
      return row;
    });
  }

  /**
   * Removes an event: its organizer's owner, or an instance moderator (`moderator`: their acting
   * profile, null when they have none), whose deletion of someone else's event is logged.
   */
  async remove(user: SessionUser, eventId: string, moderator: ActingModerator | null): Promise<EventRow> {
    const current = await this.findForWrite(eventId);
    const owner = await this.manages(user, current);
    if (!owner && !moderator) throw new Forbidden(EVENT_MESSAGES.cannotDelete, REFUSAL);
    const loggedAs = owner ? null : moderator;
    const afterCommit = await this.options.beforeDelete?.(current);
    await this.options.sequelize.transaction(async (transaction) => {
      // not-shown.md §6.16: the moderator's deletion is logged (EVENT_DELETION), with the event as it was.
      if (loggedAs) {
        await this.options.actionLogs.record(
          {
            actorId: loggedAs.actorId,
            action: 'delete',
            targetType: 'Event',
            targetId: current.id,
            changes: { ...current },
          },
          transaction,
        );
      }
      await this.options.sequelize.query('DELETE FROM events WHERE id = :id', {
        transaction,
        replacements: { id: current.id },
      });
    });
    await afterCommit?.();
    return current;
  }

  /**
   * An event by UUID as `viewer` may see it: drafts, private events and events whose publication is
   * still to come only for their organizer's owner.
   */
  async get(uuid: string, viewer: SessionUser | null): Promise<EventRow> {
    const row = isUuid(uuid) ? await this.one('e.uuid = :uuid', { uuid }) : null;
    if (!row) throw new NotFound(EVENT_MESSAGES.notFound, { code: 'event_not_found' });
    const restricted = row.draft || row.visibility === 'PRIVATE' || row.publishedAt === null;
    if (restricted && !(viewer && (await this.mayRead(viewer, row)))) {
      throw new NotFound(EVENT_MESSAGES.notFound, { code: 'event_not_found' });
    }
    return row;
  }

  /**
   * Who reads a restricted event: its organizer's owner; for a group's event, the group's moderators
   * (drafts and scheduled ones too) and members (published private ones), as their default profile.
   */
  private async mayRead(viewer: SessionUser, row: EventRow): Promise<boolean> {
    if (await this.ownsProfile(viewer, row.organizerActorId)) return true;
    const groups = this.options.groups;
    if (!groups || row.attributedToId === null) return false;
    if (await groups.userModerates(viewer.id, row.attributedToId)) return true;
    return (
      !row.draft && row.publishedAt !== null && (await groups.userIsMember(viewer.id, row.attributedToId))
    );
  }

  /** Who changes or deletes an event: its organizer's owner, or a moderator of its group (§2.2). */
  private async manages(user: SessionUser, row: EventRow): Promise<boolean> {
    if (await this.ownsProfile(user, row.organizerActorId)) return true;
    const groups = this.options.groups;
    return (
      groups !== undefined && row.attributedToId !== null && groups.userModerates(user.id, row.attributedToId)
    );
  }

  /** Whether an organizer profile may act on behalf of a group: it moderates it. */
  private async organizerModerates(organizerActorId: string, groupId: string): Promise<boolean> {
    const groups = this.options.groups;
    if (!groups || !isRowId(groupId)) return false;
    const group = await this.options.actors.findById(groupId);
    if (!group || group.type !== 'Group' || group.suspended) return false;
    return groups.actorModerates(organizerActorId, groupId);
  }

  /** The public listing: future, public, published, not cancelled events of this instance. */
  async list(query: EventListQuery): Promise<{ elements: EventRow[]; total: number }> {
    if (query.limit > EVENTS_LIMIT_MAX) {
      throw new BadInput(EVENT_MESSAGES.maxLimit, { code: EVENT_MESSAGES.maxLimit });
    }
    const limit = Math.max(query.limit, 0);
    const offset = Math.max(query.page - 1, 0) * limit;
    const conditions = [LISTED_SQL, this.options.instanceActorUri ? LOCAL_OR_FOLLOWED_SQL : 'e.local'];
    const replacements: Record<string, unknown> = {
      limit,
      offset,
      instanceActorUri: this.options.instanceActorUri ?? null,
    };
    let join = '';
    if (query.location) {
      const center = geohashCenter(query.location);
      if (!center) throw BadInput.field('location', EVENT_MESSAGES.badLocation);
      const radius = query.radius ?? DEFAULT_RADIUS_KM;
      if (!(radius > 0)) throw BadInput.field('radius', EVENT_MESSAGES.badRadius);
      join = 'JOIN addresses a ON a.id = e.physical_address_id';
      const boxes = boundingBoxes(center, radius).map((box, index) => {
        Object.assign(replacements, {
          [`west${index}`]: box.west,
          [`south${index}`]: box.south,
          [`east${index}`]: box.east,
          [`north${index}`]: box.north,
        });
        return `point(a.longitude, a.latitude) <@ box(point(:west${index}, :south${index}), point(:east${index}, :north${index}))`;
      });
      conditions.push('a.latitude IS NOT NULL', `(${boxes.join(' OR ')})`, `${DISTANCE_SQL} <= :radius`);
      Object.assign(replacements, {
        centerLatitude: center.latitude,
        centerLongitude: center.longitude,
        radius,
      });
    }
    if (query.longEvents !== null && query.longEvents !== undefined) {
      conditions.push(query.longEvents ? this.longEventSql() : `NOT ${this.longEventSql()}`);
    }
    const where = conditions.join(' AND ');
    const order = `e.${ORDER_COLUMNS[query.orderBy]} ${query.direction === 'DESC' ? 'DESC' : 'ASC'}, e.id`;
    const [elements, [count]] = await Promise.all([
      this.options.sequelize.query<EventRow>(
        `SELECT ${EVENT_COLUMNS} FROM events e ${join} WHERE ${where} ORDER BY ${order} LIMIT :limit OFFSET :offset`,
        { type: QueryTypes.SELECT, replacements },
      ),
      this.options.sequelize.query<{ total: number }>(
        `SELECT count(*)::int AS total FROM events e ${join} WHERE ${where}`,
        { type: QueryTypes.SELECT, replacements },
      ),
    ]);
    return { elements, total: count!.total };
  }

  /** Whether an event lasts longer than the instance's long-event duration (never when that is 0). */
  isLongEvent(event: Pick<EventRow, 'beginsOn' | 'endsOn'>): boolean {
    const days = this.options.longEventDays;
    return (
      days > 0 && event.endsOn !== null && event.endsOn.getTime() - event.beginsOn.getTime() > days * DAY_MS
    );
  }

  private longEventSql(): string {
    const days = Math.max(0, Math.floor(this.options.longEventDays));
    return days > 0
      ? `(e.ends_on IS NOT NULL AND e.ends_on - e.begins_on > interval '${days} days')`
      : 'false';
  }

  /** Publishes an event whose `publishAt` has come (the scheduled job); anything else is left as it is. */
  async publishDue(eventId: string): Promise<boolean> {
    if (!isRowId(eventId)) return false;
    const now = this.options.clock();
    const [, affected] = await this.options.sequelize.query(
      `UPDATE events SET published_at = :now WHERE id = :id AND NOT draft AND published_at IS NULL
         AND publish_at <= :now`,
      { type: QueryTypes.UPDATE, replacements: { id: eventId, now } },
    );
    if (affected > 0 && this.options.afterPublish) {
      const row = await this.byId(eventId);
      if (row) await this.options.afterPublish(row);
    }
    return affected > 0;
  }

  /** What a change of `draft` does to publication: leaving draft publishes now or at `publishAt`. */
  private publicationChanges(current: EventRow, draft: boolean | undefined): Record<string, unknown> {
    if (draft === true) return { published_at: null };
    if (draft !== false || current.publishedAt !== null) return {};
    const now = this.options.clock();
    if (current.publishAt && current.publishAt.getTime() > now.getTime()) return {};
    return { published_at: now, publish_at: current.publishAt ?? now };
  }

  /** An event waiting for its `publishAt` gets a job then; duplicates of the same time are one job. */
  private async schedulePublication(row: EventRow): Promise<void> {
    if (row.draft || row.publishedAt !== null || row.publishAt === null) return;
    const delayMs = row.publishAt.getTime() - this.options.clock().getTime();
    await this.options.queue.send(
      EVENT_JOBS.publish,
      { eventId: row.id },
      {
        startAfterSeconds: Math.max(0, Math.ceil(delayMs / 1000)),
        singletonKey: `${row.id}@${row.publishAt.toISOString()}`,
      },
    );
  }

  private async findForWrite(eventId: string): Promise<EventRow> {
    const row = isRowId(eventId) ? await this.byId(eventId) : null;
    if (!row) throw new NotFound(EVENT_MESSAGES.notFound, { code: 'event_not_found' });
    return row;
  }

  private byId(id: string, transaction?: Transaction): Promise<EventRow | null> {
    return this.one('e.id = :id', { id }, transaction);
  }

  private async one(
    where: string,
    replacements: Record<string, unknown>,
    transaction?: Transaction,
  ): Promise<EventRow | null> {
    const [row] = await this.options.sequelize.query<EventRow>(
      `SELECT ${EVENT_COLUMNS} FROM events e WHERE ${where}`,
      { type: QueryTypes.SELECT, replacements, transaction },
    );
    return row ?? null;
  }

  private async ownsProfile(user: SessionUser, actorId: string): Promise<boolean> {
    const actor = isRowId(actorId) ? await this.options.actors.findById(actorId) : null;
    return actor !== null && actor.userId === user.id && actor.type === 'Person' && !actor.suspended;
  }

  private async ownedProfile(user: SessionUser, actorId: string, message: string): Promise<void> {
    if (!(await this.ownsProfile(user, actorId))) throw new Forbidden(message, REFUSAL);
  }

  /** Contacts are profiles or groups that exist and are not suspended; each once, in the order given. */
  private async checkedContacts(ids: readonly string[] | undefined): Promise<string[]> {
    const unique = [...new Set(ids ?? [])];
    if (unique.length === 0) return [];
    const found = unique.every(isRowId) ? await this.options.actors.findByIds(unique) : new Map();
    const missing = unique.some((id) => {
      const actor = found.get(id);
      return !actor || actor.suspended || (actor.type !== 'Person' && actor.type !== 'Group');
    });
    if (missing) throw BadInput.field('contacts', EVENT_MESSAGES.contactNotFound);
    return unique;
  }

  private async setContacts(
    eventId: string,
    contacts: readonly string[],
    transaction: Transaction,
  ): Promise<void> {
    await this.options.sequelize.query('DELETE FROM event_contacts WHERE event_id = :eventId', {
      transaction,
      replacements: { eventId },
    });
    if (contacts.length === 0) return;
    await this.options.sequelize.query(
      `INSERT INTO event_contacts (event_id, actor_id, position)
       SELECT :eventId, c.id, c.position FROM unnest(ARRAY[:ids]::bigint[]) WITH ORDINALITY AS c(id, position)`,
      { transaction, replacements: { eventId, ids: [...contacts] } },
    );
  }

  /** The picture's media id: an existing media (already checked to be the caller's) or the staged upload, now a row. */
  private async pictureId(
    user: SessionUser,
    organizerActorId: string,
    choice: PictureChoice,
    transaction: Transaction,
  ): Promise<string> {
    if ('existing' in choice) return choice.existing.id;
    const media = await this.options.media.commit(
      choice.staged,
      organizerActorId,
      user.id,
      choice.details,
      transaction,
    );
    return String(media.id);
  }

  /** The event's own address row, changed in place (or created); null when the address is removed. */
  private async replaceAddress(
    currentId: string | null,
    address: AddressInput | null,
    transaction: Transaction,
  ): Promise<string | null> {
    if (address === null) return null;
    return replaceAddress(this.options.sequelize, currentId, address, transaction);
  }

  private async tagTitles(eventId: string, transaction: Transaction): Promise<string[]> {
    const rows = await this.options.sequelize.query<{ title: string }>(
      'SELECT t.title FROM events_tags et JOIN tags t ON t.id = et.tag_id WHERE et.event_id = :eventId ORDER BY t.id',
      { type: QueryTypes.SELECT, transaction, replacements: { eventId } },
    );
    return rows.map((row) => row.title);
  }
}

function stagedOf(picture: PictureChoice | null | undefined): StagedMedia[] {
  return picture && 'staged' in picture ? [picture.staged] : [];
}
