import { randomUUID } from 'node:crypto';
import { isRowId } from '@agora/db';
import { BadInput, Forbidden, NotFound } from '@agora/core';
import type { SessionUser } from '@agora/auth';
import { sanitizeRemoteHtml, type ActorStore } from '@agora/federation';
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import type { ActingModerator } from '../action-logs/acting-moderator.js';
import type { ActionLogStore } from '../action-logs/action-log.store.js';
import { EVENT_COLUMNS, type EventMetadataEntry, type EventRow } from './event-row.js';
import { eventTags } from './event-tags.js';

/** The reference's texts (plain-string refusals there: `unknown_error`, status_code 500). */
export const EVENT_MESSAGES = {
  notFound: 'Event not found',
  organizerNotOwned: 'Organizer profile is not owned by the user',
  endsBeforeBegins: 'ends_on cannot be set before begins_on',
  cannotEdit: "You can't edit this event.",
  cannotAttribute: "You can't attribute this event to this profile.",
  cannotDelete: 'You cannot delete this event',
  groupCreate: "Organizer profile doesn't have permission to create an event on behalf of this group",
  groupUpdate: "This profile doesn't have permission to update an event on behalf of this group",
  maxLimit: 'events_max_limit_reached',
} as const;

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
}

export interface EventListQuery {
  page: number;
  limit: number;
  orderBy: 'BEGINS_ON' | 'INSERTED_AT' | 'UPDATED_AT';
  direction: 'ASC' | 'DESC';
}

export interface EventServiceOptions {
  sequelize: Sequelize;
  actors: ActorStore;
  /** Where a moderator's deletion of someone else's event is logged. */
  actionLogs: ActionLogStore;
  /** Event URLs are `<publicUrl>/events/<uuid>`. */
  publicUrl: string;
}

const ORDER_COLUMNS = {
  BEGINS_ON: 'begins_on',
  INSERTED_AT: 'inserted_at',
  UPDATED_AT: 'updated_at',
} as const;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The rules of events: who organizes, what is stored, who reads drafts and who changes them. */
export class EventService {
  constructor(private readonly options: EventServiceOptions) {}

  async create(
    user: SessionUser,
    input: EventInput & { title: string; description: string; beginsOn: Date; organizerActorId: string },
  ): Promise<EventRow> {
    await this.ownedProfile(user, input.organizerActorId, EVENT_MESSAGES.organizerNotOwned);
    // Events on behalf of a group need its moderators; until groups land no profile is one.
    if (input.attributedToId) throw new Forbidden(EVENT_MESSAGES.groupCreate, REFUSAL);
    checkDates(input.beginsOn, input.endsOn ?? null);
    const description = sanitizeRemoteHtml(input.description);
    const uuid = randomUUID();
    // One transaction: a refused tag or a failing insert leaves no event and no tags behind.
    return this.options.sequelize.transaction(async (transaction) => {
      const [row] = await this.options.sequelize.query<{ id: string }>(
        `INSERT INTO events (uuid, url, title, description, begins_on, ends_on, status, visibility,
           join_options, draft, organizer_actor_id, attributed_to_id, category, language, options, metadata,
           external_participation_url, online_address, phone_address, publish_at)
         VALUES (:uuid, :url, :title, :description, :beginsOn, :endsOn, :status, :visibility, :joinOptions,
           :draft, :organizerActorId, :attributedToId, :category, :language, :options, :metadata,
           :externalParticipationUrl, :onlineAddress, :phoneAddress, :publishAt)
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
            draft: input.draft ?? false,
            organizerActorId: input.organizerActorId,
            attributedToId: input.attributedToId ?? null,
            category: input.category ?? 'MEETING',
            language: input.language ?? 'und',
            options: JSON.stringify(input.options ?? {}),
            metadata: JSON.stringify(input.metadata ?? []),
            externalParticipationUrl: input.externalParticipationUrl ?? null,
            onlineAddress: input.onlineAddress ?? null,
            phoneAddress: input.phoneAddress ?? null,
            publishAt: input.publishAt ?? null,
          },
        },
      );
      await this.setTags(row!.id, eventTags(input.tags ?? [], description), transaction);
      return (await this.byId(row!.id, transaction))!;
    });
  }

  async update(user: SessionUser, eventId: string, input: EventInput): Promise<EventRow> {
    const current = await this.findForWrite(eventId);
    if (!(await this.ownsProfile(user, current.organizerActorId))) {
      throw new Forbidden(EVENT_MESSAGES.cannotEdit, REFUSAL);
    }
    if (input.organizerActorId !== undefined && input.organizerActorId !== current.organizerActorId) {
      await this.ownedProfile(user, input.organizerActorId, EVENT_MESSAGES.cannotAttribute);
    }
    if (input.attributedToId) throw new Forbidden(EVENT_MESSAGES.groupUpdate, REFUSAL);
    const beginsOn = input.beginsOn ?? current.beginsOn;
    const endsOn = input.endsOn === undefined ? current.endsOn : input.endsOn;
    checkDates(beginsOn, endsOn);
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
      language: input.language,
      options:
        input.options === undefined ? undefined : JSON.stringify({ ...current.options, ...input.options }),
      metadata: input.metadata === undefined ? undefined : JSON.stringify(input.metadata),
      external_participation_url: input.externalParticipationUrl,
      online_address: input.onlineAddress,
      phone_address: input.phoneAddress,
    };
    const set = Object.entries(changes).filter(([, value]) => value !== undefined);
    return this.options.sequelize.transaction(async (transaction) => {
      await this.options.sequelize.query(
        `UPDATE events SET ${set.map(([column]) => `${column} = :${column}`).join(', ')}${set.length ? ', ' : ''}updated_at = now()
         WHERE id = :id`,
        { transaction, replacements: { ...Object.fromEntries(set), id: current.id } },
      );
      // New tags replace the old; a new description's hashtags join them.
      if (input.tags !== undefined || description !== undefined) {
        const given = input.tags ?? (await this.tagTitles(current.id, transaction));
        await this.setTags(current.id, eventTags(given, description ?? current.description), transaction);
      }
      return (await this.byId(current.id, transaction))!;
    });
  }

  /**
   * Removes an event: its organizer's owner, or an instance moderator (`moderator`: their acting
   * profile, null when they have none), whose deletion of someone else's event is logged.
   */
  async remove(user: SessionUser, eventId: string, moderator: ActingModerator | null): Promise<EventRow> {
    const current = await this.findForWrite(eventId);
    const owner = await this.ownsProfile(user, current.organizerActorId);
    if (!owner && !moderator) throw new Forbidden(EVENT_MESSAGES.cannotDelete, REFUSAL);
    const loggedAs = owner ? null : moderator;
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
    return current;
  }

  /** An event by UUID as `viewer` may see it: drafts and private events only for their organizer's owner. */
  async get(uuid: string, viewer: SessionUser | null): Promise<EventRow> {
    const row = UUID.test(uuid) ? await this.one('e.uuid = :uuid', { uuid }) : null;
    if (!row) throw new NotFound(EVENT_MESSAGES.notFound, { code: 'event_not_found' });
    const restricted = row.draft || row.visibility === 'PRIVATE';
    if (restricted && !(viewer && (await this.ownsProfile(viewer, row.organizerActorId)))) {
      throw new NotFound(EVENT_MESSAGES.notFound, { code: 'event_not_found' });
    }
    return row;
  }

  /** The public listing: future, public, published, not cancelled events of this instance. */
  async list(query: EventListQuery): Promise<{ elements: EventRow[]; total: number }> {
    if (query.limit > EVENTS_LIMIT_MAX) {
      throw new BadInput(EVENT_MESSAGES.maxLimit, { code: EVENT_MESSAGES.maxLimit });
    }
    const limit = Math.max(query.limit, 0);
    const offset = Math.max(query.page - 1, 0) * limit;
    const where = `NOT e.draft AND e.visibility = 'PUBLIC' AND e.status <> 'CANCELLED' AND e.local
      AND e.begins_on > now()`;
    const order = `e.${ORDER_COLUMNS[query.orderBy]} ${query.direction === 'DESC' ? 'DESC' : 'ASC'}, e.id`;
    const [elements, [count]] = await Promise.all([
      this.options.sequelize.query<EventRow>(
        `SELECT ${EVENT_COLUMNS} FROM events e WHERE ${where} ORDER BY ${order} LIMIT :limit OFFSET :offset`,
        { type: QueryTypes.SELECT, replacements: { limit, offset } },
      ),
      this.options.sequelize.query<{ total: number }>(
        `SELECT count(*)::int AS total FROM events e WHERE ${where}`,
        { type: QueryTypes.SELECT },
      ),
    ]);
    return { elements, total: count!.total };
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

  private async tagTitles(eventId: string, transaction: Transaction): Promise<string[]> {
    const rows = await this.options.sequelize.query<{ title: string }>(
      'SELECT t.title FROM events_tags et JOIN tags t ON t.id = et.tag_id WHERE et.event_id = :eventId ORDER BY t.id',
      { type: QueryTypes.SELECT, transaction, replacements: { eventId } },
    );
    return rows.map((row) => row.title);
  }

  private async setTags(
    eventId: string,
    tags: Array<{ slug: string; title: string }>,
    transaction: Transaction,
  ): Promise<void> {
    await this.options.sequelize.query('DELETE FROM events_tags WHERE event_id = :eventId', {
      transaction,
      replacements: { eventId },
    });
    if (tags.length === 0) return;
    // An existing tag keeps its first title; the no-op update makes RETURNING give its id.
    await this.options.sequelize.query(
      `WITH given AS (
         SELECT * FROM unnest(ARRAY[:slugs]::text[], ARRAY[:titles]::text[]) AS g(slug, title)
       ), upserted AS (
         INSERT INTO tags (slug, title) SELECT slug, title FROM given
         ON CONFLICT (slug) DO UPDATE SET slug = EXCLUDED.slug RETURNING id
       )
       INSERT INTO events_tags (event_id, tag_id) SELECT :eventId, id FROM upserted`,
      {
        transaction,
        replacements: { eventId, slugs: tags.map((tag) => tag.slug), titles: tags.map((tag) => tag.title) },
      },
    );
  }
}

function checkDates(beginsOn: Date, endsOn: Date | null): void {
  if (endsOn && endsOn.getTime() < beginsOn.getTime()) {
    throw new BadInput(EVENT_MESSAGES.endsBeforeBegins, {
      fields: { ends_on: [EVENT_MESSAGES.endsBeforeBegins] },
    });
  }
}
