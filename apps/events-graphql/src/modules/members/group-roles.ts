import { isRowId } from '@agora/db';
import { QueryTypes, type Sequelize } from 'sequelize';
import { roleInGroup } from './member-roles.js';
import { isMemberRole, isModeratorRole, type MemberRole } from './member-row.js';

/**
 * The group-role questions other modules ask (events on behalf of a group, §2.2): a profile's role, and
 * the role of a user's default profile (the profile operations without an actor argument act as).
 */
export class GroupRoles {
  constructor(private readonly sequelize: Sequelize) {}

  ofActor(actorId: string, groupId: string): Promise<MemberRole | null> {
    return roleInGroup(this.sequelize, actorId, groupId);
  }

  async ofUser(userId: string, groupId: string): Promise<MemberRole | null> {
    if (!isRowId(userId) || !isRowId(groupId)) return null;
    const [row] = await this.sequelize.query<{ role: MemberRole }>(
      // The default profile: the chosen one, else the oldest (as the persons module reads it).
      `SELECT m.role FROM members m WHERE m.parent_id = :groupId AND m.actor_id = (
         SELECT a.id FROM actors a LEFT JOIN user_default_actors d ON d.user_id = a.user_id
         WHERE a.user_id = :userId AND a.type = 'Person' AND a.domain IS NULL
         ORDER BY a.id = d.actor_id DESC NULLS LAST, a.id LIMIT 1)`,
      { type: QueryTypes.SELECT, replacements: { userId, groupId } },
    );
    return row?.role ?? null;
  }

  async actorModerates(actorId: string, groupId: string): Promise<boolean> {
    return isModeratorRole(await this.ofActor(actorId, groupId));
  }

  async userModerates(userId: string, groupId: string): Promise<boolean> {
    return isModeratorRole(await this.ofUser(userId, groupId));
  }

  async userIsMember(userId: string, groupId: string): Promise<boolean> {
    return isMemberRole(await this.ofUser(userId, groupId));
  }
}
