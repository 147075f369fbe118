import { QueryTypes } from 'sequelize';
import type { AppContext } from '../../../context.js';
import type { MediaRow } from '../../media/media.model.js';
import { ADDRESS_COLUMNS, EVENT_COLUMNS, LISTED_SQL, type AddressRow, type EventRow } from '../event-row.js';

/** How many related events an event shows, as the reference's event page. */
export const RELATED_EVENTS_MAX = 3;

/** What an event page reads beside the event, for many events at once (the events loaders' batches). */
export class EventDetailsView {
  constructor(private readonly app: Pick<AppContext, 'sequelize' | 'media'>) {}

  async addresses(ids: readonly string[]): Promise<Map<string, AddressRow>> {
    const rows = await this.app.sequelize.query<AddressRow>(
      `SELECT ${ADDRESS_COLUMNS} FROM addresses a WHERE a.id = ANY(ARRAY[:ids]::bigint[])`,
      { type: QueryTypes.SELECT, replacements: { ids: [...ids] } },
    );
    return new Map(rows.map((row) => [row.id, row]));
  }

  async media(ids: readonly string[]): Promise<Map<string, MediaRow>> {
    const rows = await this.app.media.model.findAll({ where: { id: [...ids] } });
    return new Map(rows.map((row) => [String(row.get('id')), row.get()]));
  }

  /** The contacts' actor ids of each event, in the organizer's order. */
  async contactIds(eventIds: readonly string[]): Promise<Map<string, string[]>> {
    const rows = await this.app.sequelize.query<{ eventId: string; actorId: string }>(
      `SELECT event_id::text AS "eventId", actor_id::text AS "actorId" FROM event_contacts
        WHERE event_id = ANY(ARRAY[:eventIds]::bigint[]) ORDER BY event_id, position`,
      { type: QueryTypes.SELECT, replacements: { eventIds: [...eventIds] } },
    );
    const byEvent = new Map<string, string[]>();
    for (const { eventId, actorId } of rows) byEvent.set(eventId, [...(byEvent.get(eventId) ?? []), actorId]);
    return byEvent;
  }

  /**
   * Listed events sharing tags with each event (most shared first) or, after those, its category (soonest
   * first). Candidates come from the tag index and the category index, never from a scan of all events.
   */
  async related(eventIds: readonly string[]): Promise<Map<string, EventRow[]>> {
    const rows = await this.app.sequelize.query<EventRow & { sourceId: string }>(
      `SELECT src.id::text AS "sourceId", r.* FROM events src CROSS JOIN LATERAL (
         SELECT ${EVENT_COLUMNS} FROM (
           SELECT c.id, max(c.shared) AS shared FROM (
             (SELECT et.event_id AS id, count(*) AS shared FROM events_tags st
                JOIN events_tags et ON et.tag_id = st.tag_id AND et.event_id <> st.event_id
               WHERE st.event_id = src.id GROUP BY et.event_id)
             UNION ALL
             (SELECT e.id, 0 FROM events e WHERE e.category = src.category AND e.id <> src.id AND ${LISTED_SQL}
               ORDER BY e.begins_on LIMIT ${RELATED_EVENTS_MAX})
           ) c GROUP BY c.id
         ) candidate JOIN events e ON e.id = candidate.id
         WHERE ${LISTED_SQL}
         ORDER BY candidate.shared DESC, e.begins_on, e.id LIMIT ${RELATED_EVENTS_MAX}
       ) r WHERE src.id = ANY(ARRAY[:eventIds]::bigint[])`,
      { type: QueryTypes.SELECT, replacements: { eventIds: [...eventIds] } },
    );
    const byEvent = new Map<string, EventRow[]>();
    for (const { sourceId, ...event } of rows)
      byEvent.set(sourceId, [...(byEvent.get(sourceId) ?? []), event]);
    return byEvent;
  }
}
