import { QueryTypes } from 'sequelize';
import type { AppContext } from '../../../context.js';
import { EVENT_COLUMNS, type EventRow } from '../../events/event-row.js';
import { pageBounds } from '../../groups/views/groups.view.js';
import { FOLLOWER_COLUMNS, type FollowedGroupEventRow, type FollowerRow } from '../follower-row.js';

interface Page<T> {
  elements: T[];
  total: number;
}

/** Follower lists and the events of followed groups: each page one query and its count another. */
export class FollowersView {
  constructor(private readonly app: Pick<AppContext, 'sequelize'>) {}

  /** An actor's followers, approved or pending or both (null), oldest first. */
  ofTarget(
    targetId: string,
    approved: boolean | null,
    page: { page: number; limit: number },
  ): Promise<Page<FollowerRow>> {
    const conditions = ['f.target_actor_id = :targetId'];
    if (approved !== null) conditions.push(approved ? 'f.accepted_at IS NOT NULL' : 'f.accepted_at IS NULL');
    return this.page(conditions.join(' AND '), { targetId, ...pageBounds(page.page, page.limit) });
  }

  /** The groups a profile follows, one (by id) when named. */
  ofActor(
    actorId: string,
    groupId: string | null,
    page: { page: number; limit: number },
  ): Promise<Page<FollowerRow>> {
    const conditions = [
      'f.actor_id = :actorId',
      `EXISTS (SELECT 1 FROM actors t WHERE t.id = f.target_actor_id AND t.type = 'Group')`,
    ];
    if (groupId !== null) conditions.push('f.target_actor_id = :groupId');
    return this.page(conditions.join(' AND '), { actorId, groupId, ...pageBounds(page.page, page.limit) });
  }

  /**
   * Published public events of the groups the user's profiles follow (accepted follows), starting from
   * `after`, soonest first; each event once, with the first profile that follows its group.
   */
  async groupEventsOf(
    userId: string,
    after: Date,
    page: { page: number; limit: number },
  ): Promise<Page<FollowedGroupEventRow>> {
    const followed = `SELECT DISTINCT ON (e.id) e.id AS event_id, f.target_actor_id AS group_id, f.actor_id AS profile_id
      FROM actors p
      JOIN follows f ON f.actor_id = p.id AND f.accepted_at IS NOT NULL
      JOIN events e ON e.attributed_to_id = f.target_actor_id
      WHERE p.user_id = :userId AND p.type = 'Person' AND p.domain IS NULL
        AND NOT e.draft AND e.published_at IS NOT NULL AND e.visibility = 'PUBLIC' AND e.begins_on >= :after
      ORDER BY e.id, f.actor_id`;
    const replacements = { userId, after, ...pageBounds(page.page, page.limit) };
    const [rows, [count]] = await Promise.all([
      this.app.sequelize.query<EventRow & { groupId: string; profileId: string }>(
        `SELECT ${EVENT_COLUMNS}, x.group_id::text AS "groupId", x.profile_id::text AS "profileId"
         FROM (${followed}) x JOIN events e ON e.id = x.event_id
         ORDER BY e.begins_on, e.id LIMIT :limit OFFSET :offset`,
        { type: QueryTypes.SELECT, replacements },
      ),
      this.app.sequelize.query<{ total: number }>(`SELECT count(*)::int AS total FROM (${followed}) x`, {
        type: QueryTypes.SELECT,
        replacements,
      }),
    ]);
    return {
      total: count!.total,
      elements: rows.map(({ groupId, profileId, ...event }) => ({ event, groupId, profileId, userId })),
    };
  }

  private async page(where: string, replacements: Record<string, unknown>): Promise<Page<FollowerRow>> {
    const [elements, [count]] = await Promise.all([
      this.app.sequelize.query<FollowerRow>(
        `SELECT ${FOLLOWER_COLUMNS} FROM follows f WHERE ${where} ORDER BY f.id LIMIT :limit OFFSET :offset`,
        { type: QueryTypes.SELECT, replacements },
      ),
      this.app.sequelize.query<{ total: number }>(
        `SELECT count(*)::int AS total FROM follows f WHERE ${where}`,
        {
          type: QueryTypes.SELECT,
          replacements,
        },
      ),
    ]);
    return { elements, total: count!.total };
  }
}
