import { QueryTypes } from 'sequelize';
import type { AppContext } from '../../../context.js';
import type { TagRow } from '../event-row.js';

/** The tags of many events in one query (the `Event.tags` loader's batch). */
export class EventTagsView {
  constructor(private readonly app: Pick<AppContext, 'sequelize'>) {}

  async tagsOf(eventIds: readonly string[]): Promise<Map<string, TagRow[]>> {
    const rows = await this.app.sequelize.query<TagRow & { eventId: string }>(
      `SELECT et.event_id::text AS "eventId", t.id::text AS id, t.slug, t.title
       FROM events_tags et JOIN tags t ON t.id = et.tag_id
       WHERE et.event_id = ANY(ARRAY[:eventIds]::bigint[]) ORDER BY t.id`,
      { type: QueryTypes.SELECT, replacements: { eventIds: [...eventIds] } },
    );
    const byEvent = new Map<string, TagRow[]>();
    for (const { eventId, ...tag } of rows) {
      const list = byEvent.get(eventId) ?? [];
      list.push(tag);
      byEvent.set(eventId, list);
    }
    return byEvent;
  }
}
