import { toActor, type Actor, type ActorRow } from '@agora/federation';
import { Op, QueryTypes, type WhereOptions } from 'sequelize';
import type { AppContext } from '../../../context.js';
import { EVENT_COLUMNS, type EventRow } from '../../events/event-row.js';
import type { MemberRole } from '../../members/member-row.js';
import { rankedPages } from '../../posts/views/paged-by-parent.js';
import { GROUP_DETAILS_COLUMNS, type GroupDetails } from '../group-row.js';

export interface GroupFilters {
  preferredUsername: string;
  name: string;
  domain: string;
  local: boolean;
  suspended: boolean;
  page: number;
  limit: number;
}

/** Which of a group's events a caller sees: PUBLIC ones, or every published one (its members). */
export type GroupEventScope = 'public' | 'members';

export interface GroupEventQuery {
  groupId: string;
  scope: GroupEventScope;
  after: Date | null;
  before: Date | null;
  order: 'BEGINS_ON' | 'INSERTED_AT' | 'UPDATED_AT';
  direction: 'ASC' | 'DESC';
  page: number;
  limit: number;
}

const ORDER_COLUMNS = {
  BEGINS_ON: 'begins_on',
  INSERTED_AT: 'inserted_at',
  UPDATED_AT: 'updated_at',
} as const;

export function pageBounds(page: number, limit: number): { limit: number; offset: number } {
  const size = Math.max(0, limit);
  return { limit: size, offset: Math.max(0, page - 1) * size };
}

export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (char) => `\\${char}`);
}

/** Group reads: the moderators' list, details and roles in batches, a group's events. */
export class GroupsView {
  constructor(private readonly app: Pick<AppContext, 'actors' | 'sequelize'>) {}

  /** The moderators' list (`groups`): filters combine; newest first. */
  async list(filters: GroupFilters): Promise<{ elements: Actor[]; total: number }> {
    const conditions: WhereOptions<ActorRow>[] = [{ type: 'Group' }];
    if (filters.preferredUsername) {
      conditions.push({ username: { [Op.iLike]: `%${escapeLike(filters.preferredUsername)}%` } });
    }
    if (filters.name) conditions.push({ displayName: { [Op.iLike]: `%${escapeLike(filters.name)}%` } });
    if (filters.domain) conditions.push({ domain: { [Op.iLike]: `%${escapeLike(filters.domain)}%` } });
    else conditions.push({ domain: filters.local ? null : { [Op.ne]: null } });
    if (filters.suspended) conditions.push({ suspendedAt: { [Op.ne]: null } });
    const { count, rows } = await this.app.actors.model.findAndCountAll({
      where: { [Op.and]: conditions },
      order: [['id', 'DESC']],
      ...pageBounds(filters.page, filters.limit),
    });
    return { total: count, elements: rows.map((row) => toActor(row.get())) };
  }

  /** The details of many groups in one query. */
  async details(groupIds: readonly string[]): Promise<Map<string, GroupDetails>> {
    const rows = await this.app.sequelize.query<GroupDetails>(
      `SELECT ${GROUP_DETAILS_COLUMNS} FROM group_details g WHERE g.actor_id = ANY(ARRAY[:ids]::bigint[])`,
      { type: QueryTypes.SELECT, replacements: { ids: [...groupIds, '0'] } },
    );
    return new Map(rows.map((row) => [row.actorId, row]));
  }

  /** The roles one profile holds in many groups, in one query. */
  async rolesOf(actorId: string, groupIds: readonly string[]): Promise<Map<string, MemberRole>> {
    const rows = await this.app.sequelize.query<{ groupId: string; role: MemberRole }>(
      `SELECT parent_id::text AS "groupId", role FROM members
       WHERE actor_id = :actorId AND parent_id = ANY(ARRAY[:ids]::bigint[])`,
      { type: QueryTypes.SELECT, replacements: { actorId, ids: [...groupIds, '0'] } },
    );
    return new Map(rows.map((row) => [row.groupId, row.role]));
  }

  /**
   * The same page of the events attributed to each of `groupIds`, as `scope` sees them (drafts never),
   * in one statement whatever the number of groups (a list of groups asks each one's events; one more
   * when a page lies past a group's last event).
   */
  async eventsOf(
    groupIds: readonly string[],
    query: Omit<GroupEventQuery, 'groupId'>,
  ): Promise<Map<string, { elements: EventRow[]; total: number }>> {
    const conditions = [
      'e.attributed_to_id = ANY(ARRAY[:groupIds]::bigint[])',
      'NOT e.draft',
      'e.published_at IS NOT NULL',
    ];
    if (query.scope === 'public') conditions.push(`e.visibility = 'PUBLIC'`);
    if (query.after) conditions.push('e.begins_on >= :after');
    if (query.before) conditions.push('e.begins_on <= :before');
    const where = conditions.join(' AND ');
    const order = `e.${ORDER_COLUMNS[query.order]} ${query.direction === 'DESC' ? 'DESC' : 'ASC'}, e.id`;
    const { limit } = pageBounds(query.page, query.limit);
    const pages = await rankedPages<EventRow>(this.app.sequelize, {
      columns: EVENT_COLUMNS,
      from: 'FROM events e',
      parentColumn: 'e.attributed_to_id',
      where,
      order,
      parentIds: groupIds,
      page: query.page,
      limit,
      replacements: { groupIds: [...groupIds, '0'], after: query.after, before: query.before },
    });
    return pages;
  }
}
