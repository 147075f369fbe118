import { QueryTypes } from 'sequelize';
import type { AppContext } from '../../../context.js';
import { escapeLike, pageBounds } from '../../groups/views/groups.view.js';
import { MEMBER_COLUMNS, type MemberRole, type MemberRow } from '../member-row.js';

export interface MemberPage {
  elements: MemberRow[];
  total: number;
}

/** Member lists: a group's, a profile's, a user's; each page is one query and its count another. */
export class MembersView {
  constructor(private readonly app: Pick<AppContext, 'sequelize'>) {}

  /** A group's members with these roles (all when empty), matching `name` in their names; by role then age. */
  async ofGroup(
    groupId: string,
    filter: { roles: readonly MemberRole[]; name: string | null },
    page: { page: number; limit: number },
  ): Promise<MemberPage> {
    const { join, where, replacements } = this.ofGroupFilter(groupId, filter);
    return this.page(join, where, 'm.id', { ...replacements, ...pageBounds(page.page, page.limit) });
  }

  /** How many members `ofGroup` would list (a page that asks only `total`, as the group page does). */
  async totalOfGroup(
    groupId: string,
    filter: { roles: readonly MemberRole[]; name: string | null },
  ): Promise<number> {
    const { join, where, replacements } = this.ofGroupFilter(groupId, filter);
    const [count] = await this.app.sequelize.query<{ total: number }>(
      `SELECT count(*)::int AS total FROM members m ${join} WHERE ${where}`,
      { type: QueryTypes.SELECT, replacements },
    );
    return count!.total;
  }

  private ofGroupFilter(groupId: string, filter: { roles: readonly MemberRole[]; name: string | null }) {
    const conditions = ['m.parent_id = :groupId'];
    if (filter.roles.length > 0) conditions.push('m.role IN (:roles)');
    let join = '';
    if (filter.name) {
      join = 'JOIN actors a ON a.id = m.actor_id';
      conditions.push(`(a.username ILIKE :name OR a.display_name ILIKE :name)`);
    }
    const replacements = {
      groupId,
      roles: filter.roles.length > 0 ? [...filter.roles] : null,
      name: filter.name ? `%${escapeLike(filter.name)}%` : null,
    };
    return { join, where: conditions.join(' AND '), replacements };
  }

  /** A profile's memberships, optionally of one group (by id). */
  ofActor(
    actorId: string,
    groupId: string | null,
    page: { page: number; limit: number },
  ): Promise<MemberPage> {
    const conditions = ['m.actor_id = :actorId'];
    if (groupId !== null) conditions.push('m.parent_id = :groupId');
    return this.page('', conditions.join(' AND '), 'm.id', {
      actorId,
      groupId,
      ...pageBounds(page.page, page.limit),
    });
  }

  /** The memberships of all a user's profiles, optionally of groups matching `name`. */
  ofUser(userId: string, name: string | null, page: { page: number; limit: number }): Promise<MemberPage> {
    const conditions = ['a.user_id = :userId'];
    let join = 'JOIN actors a ON a.id = m.actor_id';
    if (name) {
      join += ' JOIN actors g ON g.id = m.parent_id';
      conditions.push('(g.username ILIKE :name OR g.display_name ILIKE :name)');
    }
    return this.page(join, conditions.join(' AND '), 'm.id DESC', {
      userId,
      name: name ? `%${escapeLike(name)}%` : null,
      ...pageBounds(page.page, page.limit),
    });
  }

  /** The memberships of many profiles in one query (`Person.memberOf`). */
  async memberOf(actorIds: readonly string[]): Promise<Map<string, MemberRow[]>> {
    const rows = await this.app.sequelize.query<MemberRow>(
      `SELECT ${MEMBER_COLUMNS} FROM members m WHERE m.actor_id = ANY(ARRAY[:ids]::bigint[]) ORDER BY m.id`,
      { type: QueryTypes.SELECT, replacements: { ids: [...actorIds, '0'] } },
    );
    const byActor = new Map<string, MemberRow[]>();
    for (const row of rows) byActor.set(row.actorId, [...(byActor.get(row.actorId) ?? []), row]);
    return byActor;
  }

  private async page(
    join: string,
    where: string,
    order: string,
    replacements: Record<string, unknown>,
  ): Promise<MemberPage> {
    const [elements, [count]] = await Promise.all([
      this.app.sequelize.query<MemberRow>(
        `SELECT ${MEMBER_COLUMNS} FROM members m ${join} WHERE ${where} ORDER BY ${order} LIMIT :limit OFFSET :offset`,
        { type: QueryTypes.SELECT, replacements },
      ),
      this.app.sequelize.query<{ total: number }>(
        `SELECT count(*)::int AS total FROM members m ${join} WHERE ${where}`,
        { type: QueryTypes.SELECT, replacements },
      ),
    ]);
    return { elements, total: count!.total };
  }
}
