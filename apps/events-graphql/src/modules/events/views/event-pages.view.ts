import { QueryTypes } from 'sequelize';
import type { AppContext } from '../../../context.js';
import { EVENT_COLUMNS, type EventRow } from '../event-row.js';

export interface EventPage {
  elements: EventRow[];
  total: number;
}

/** Whose events a page lists: a profile's published ones, or a user's drafts (any of their profiles). */
export type EventPageScope = 'organized' | 'drafts';

const SCOPES: Record<EventPageScope, { join: string; where: string }> = {
  organized: { join: '', where: 'e.organizer_actor_id = o.id AND NOT e.draft' },
  drafts: {
    join: 'JOIN actors a ON a.id = e.organizer_actor_id',
    where: 'a.user_id = o.id AND e.draft',
  },
};

/** One page of events for many owners in two queries (the `organizedEvents` and `drafts` loaders' batch). */
export class EventPagesView {
  constructor(private readonly app: Pick<AppContext, 'sequelize'>) {}

  async pagesOf(
    scope: EventPageScope,
    ownerIds: readonly string[],
    page: number,
    limit: number,
  ): Promise<Map<string, EventPage>> {
    const { join, where } = SCOPES[scope];
    const owners = 'unnest(ARRAY[:ownerIds]::bigint[]) AS o(id)';
    const replacements = {
      ownerIds: [...ownerIds],
      limit: Math.max(limit, 0),
      offset: Math.max(page - 1, 0) * Math.max(limit, 0),
    };
    const [rows, counts] = await Promise.all([
      this.app.sequelize.query<EventRow & { ownerId: string }>(
        `SELECT o.id::text AS "ownerId", p.* FROM ${owners} CROSS JOIN LATERAL (
           SELECT ${EVENT_COLUMNS} FROM events e ${join} WHERE ${where}
           ORDER BY e.begins_on, e.id LIMIT :limit OFFSET :offset) p`,
        { type: QueryTypes.SELECT, replacements },
      ),
      this.app.sequelize.query<{ ownerId: string; total: number }>(
        `SELECT o.id::text AS "ownerId",
           (SELECT count(*)::int FROM events e ${join} WHERE ${where}) AS total FROM ${owners}`,
        { type: QueryTypes.SELECT, replacements },
      ),
    ]);
    const pages = new Map<string, EventPage>(
      counts.map(({ ownerId, total }) => [ownerId, { elements: [], total }]),
    );
    for (const { ownerId, ...event } of rows) pages.get(ownerId)?.elements.push(event);
    return pages;
  }
}
