import { isRowId } from '@agora/db';
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import type { MemberRole } from './member-row.js';

/**
 * The role a profile holds in a group, or null when it has no membership row. The one lookup behind
 * every group-role rule (§2.2): group updates, member management and events on behalf of a group.
 */
export async function roleInGroup(
  sequelize: Sequelize,
  actorId: string,
  groupId: string,
  transaction?: Transaction,
): Promise<MemberRole | null> {
  if (!isRowId(actorId) || !isRowId(groupId)) return null;
  const [row] = await sequelize.query<{ role: MemberRole }>(
    'SELECT role FROM members WHERE parent_id = :groupId AND actor_id = :actorId',
    { type: QueryTypes.SELECT, replacements: { groupId, actorId }, transaction },
  );
  return row?.role ?? null;
}
