import { GROUP_MODERATOR } from '../../members/member-row.js';
import { isRowId } from '@agora/db';
import { QueryTypes } from 'sequelize';
import type { AppContext } from '../../../context.js';
import { EVENT_COLUMNS, type EventRow } from '../../events/event-row.js';
import {
  EVENT_MODERATOR_ROLES,
  PARTICIPANT_COLUMNS,
  PARTICIPANT_COUNT_COLUMNS,
  type ParticipantCounts,
  type ParticipantRole,
  type ParticipantRow,
} from '../participant-row.js';

export interface ParticipantPage {
  elements: ParticipantRow[];
  total: number;
}

export interface PageQuery {
  page: number;
  limit: number;
}

function bounds({ page, limit }: PageQuery): { limit: number; offset: number } {
  const size = Math.max(limit, 0);
  return { limit: size, offset: Math.max(page - 1, 0) * size };
}

/** Participant lists and counts: the batched and paged reads behind the participations fields. */
export class ParticipantsView {
  constructor(private readonly app: Pick<AppContext, 'sequelize'>) {}

  /** The counts per role of many events in one query. */
  async countsOf(eventIds: readonly string[]): Promise<Map<string, ParticipantCounts>> {
    const rows = await this.app.sequelize.query<ParticipantCounts & { eventId: string }>(
      `SELECT s.event_id::text AS "eventId", ${PARTICIPANT_COUNT_COLUMNS}
       FROM event_participant_stats s WHERE s.event_id = ANY(ARRAY[:eventIds]::bigint[])`,
      { type: QueryTypes.SELECT, replacements: { eventIds: ids(eventIds) } },
    );
    return new Map(rows.map(({ eventId, ...counts }) => [eventId, counts]));
  }

  /**
   * Which of `eventIds` one of the user's profiles moderates: as a MODERATOR, ADMINISTRATOR or CREATOR
   * participant, or as a moderator of the group the event is on behalf of (§2.2).
   */
  async moderatedBy(userId: string, eventIds: readonly string[]): Promise<Set<string>> {
    const rows = await this.app.sequelize.query<{ eventId: string }>(
      `SELECT p.event_id::text AS "eventId"
       FROM actors a JOIN participants p ON p.actor_id = a.id
       WHERE a.user_id = :userId AND p.event_id = ANY(ARRAY[:eventIds]::bigint[]) AND p.role IN (:roles)
       UNION
       SELECT e.id::text FROM events e
         JOIN members m ON m.parent_id = e.attributed_to_id AND m.role IN (:groupRoles)
         JOIN actors a ON a.id = m.actor_id
       WHERE a.user_id = :userId AND e.id = ANY(ARRAY[:eventIds]::bigint[])`,
      {
        type: QueryTypes.SELECT,
        replacements: {
          userId,
          eventIds: ids(eventIds),
          roles: EVENT_MODERATOR_ROLES,
          groupRoles: GROUP_MODERATOR,
        },
      },
    );
    return new Set(rows.map((row) => row.eventId));
  }

  /** Events by id (what participations point to), whatever their state. */
  async eventsByIds(eventIds: readonly string[]): Promise<Map<string, EventRow>> {
    const rows = await this.app.sequelize.query<EventRow>(
      `SELECT ${EVENT_COLUMNS} FROM events e WHERE e.id = ANY(ARRAY[:eventIds]::bigint[])`,
      { type: QueryTypes.SELECT, replacements: { eventIds: ids(eventIds) } },
    );
    return new Map(rows.map((row) => [row.id, row]));
  }

  /** A page of an event's participants with the given roles (all when empty), oldest first. */
  async ofEvent(
    eventId: string,
    roles: readonly ParticipantRole[],
    query: PageQuery,
  ): Promise<ParticipantPage> {
    const where = `p.event_id = :eventId${roles.length > 0 ? ' AND p.role IN (:roles)' : ''}`;
    return this.page(where, 'p.id', { eventId, roles: [...roles] }, query);
  }

  /** A page of a profile's participations (or its one in `eventId`), latest event first. */
  async ofActor(actorId: string, eventId: string | null, query: PageQuery): Promise<ParticipantPage> {
    if (eventId !== null && !isRowId(eventId)) return { elements: [], total: 0 };
    const where = `p.actor_id = :actorId${eventId === null ? '' : ' AND p.event_id = :eventId'}`;
    return this.page(where, 'e.begins_on DESC, p.id', { actorId, eventId }, query);
  }

  /**
   * A page of the participations of all a user's profiles: after a date, soonest first; otherwise
   * (before a date, or all) latest first, as the reference orders them.
   */
  async ofUser(
    userId: string,
    range: { after: Date | null; before: Date | null },
    query: PageQuery,
  ): Promise<ParticipantPage> {
    const conditions = ['p.actor_id IN (SELECT id FROM actors WHERE user_id = :userId)'];
    if (range.after) conditions.push('e.begins_on > :after');
    if (range.before) conditions.push('e.begins_on < :before');
    const order = range.after ? 'e.begins_on ASC, p.id' : 'e.begins_on DESC, p.id';
    return this.page(
      conditions.join(' AND '),
      order,
      { userId, after: range.after, before: range.before },
      query,
    );
  }

  private async page(
    where: string,
    order: string,
    replacements: Record<string, unknown>,
    query: PageQuery,
  ): Promise<ParticipantPage> {
    const { limit, offset } = bounds(query);
    const [elements, [count]] = await Promise.all([
      this.app.sequelize.query<ParticipantRow>(
        `SELECT ${PARTICIPANT_COLUMNS} FROM participants p JOIN events e ON e.id = p.event_id
         WHERE ${where} ORDER BY ${order} LIMIT :limit OFFSET :offset`,
        { type: QueryTypes.SELECT, replacements: { ...replacements, limit, offset } },
      ),
      this.app.sequelize.query<{ total: number }>(
        `SELECT count(*)::int AS total FROM participants p JOIN events e ON e.id = p.event_id WHERE ${where}`,
        { type: QueryTypes.SELECT, replacements },
      ),
    ]);
    return { elements, total: count!.total };
  }
}

/** Ids that can reach a bigint cast; an empty list still makes a valid array. */
function ids(values: readonly string[]): string[] {
  const valid = values.filter(isRowId);
  return valid.length > 0 ? valid : ['0'];
}
