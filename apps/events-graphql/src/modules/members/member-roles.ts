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

/**
 * Whether a profile is the only administrator of one of its groups (spec §6.29: such a profile may not
 * be deleted). Locks those groups' `group_details` rows for the rest of the transaction, as every
 * membership change does, so no administrator leaves meanwhile.
 */
export async function isOnlyAdministratorSomewhere(
  sequelize: Sequelize,
  actorId: string,
  transaction: Transaction,
): Promise<boolean> {
  if (!isRowId(actorId)) return false;
  const groups = await sequelize.query<{ groupId: string }>(
    `SELECT g.actor_id::text AS "groupId" FROM group_details g
     WHERE g.actor_id IN (SELECT parent_id FROM members WHERE actor_id = :actorId AND role IN ('ADMINISTRATOR', 'CREATOR'))
     ORDER BY g.actor_id FOR UPDATE OF g`,
    { type: QueryTypes.SELECT, replacements: { actorId }, transaction },
  );
  if (groups.length === 0) return false;
  const [row] = await sequelize.query<{ alone: boolean }>(
    `SELECT bool_or(n = 1) AS alone FROM (
       SELECT count(*) AS n FROM members
       WHERE parent_id = ANY(ARRAY[:groupIds]::bigint[]) AND role IN ('ADMINISTRATOR', 'CREATOR')
       GROUP BY parent_id) counts`,
    {
      type: QueryTypes.SELECT,
      replacements: { groupIds: groups.map((group) => group.groupId) },
      transaction,
    },
  );
  return row?.alone === true;
}
