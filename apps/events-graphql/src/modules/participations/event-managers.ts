import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import { GROUP_MODERATOR } from '../members/member-row.js';
import { EVENT_MODERATOR_ROLES } from './participant-row.js';

/**
 * Whether profile `actorId` manages an event's participants (approves them, lists them, exports
 * them): the organizer, a MODERATOR, ADMINISTRATOR or CREATOR participant, or a moderator of the
 * group the event is on behalf of (not-shown.md §2.2). One query at most.
 */
export async function canManageEvent(
  sequelize: Sequelize,
  actorId: string,
  event: { id: string; organizerActorId: string; attributedToId: string | null },
  transaction?: Transaction,
): Promise<boolean> {
  if (actorId === event.organizerActorId) return true;
  const [row] = await sequelize.query(
    `SELECT 1 FROM participants WHERE event_id = :eventId AND actor_id = :actorId AND role IN (:roles)
     UNION ALL
     SELECT 1 FROM members WHERE parent_id = :groupId AND actor_id = :actorId AND role IN (:groupRoles)
     LIMIT 1`,
    {
      type: QueryTypes.SELECT,
      transaction,
      replacements: {
        eventId: event.id,
        actorId,
        roles: EVENT_MODERATOR_ROLES,
        groupId: event.attributedToId,
        groupRoles: GROUP_MODERATOR,
      },
    },
  );
  return row !== undefined;
}

/**
 * Whether one of user `userId`'s profiles manages the participants of event `eventId` (the rule of
 * `canManageEvent`, for a user: who may download what a manager exported). One query.
 */
export async function userManagesEvent(
  sequelize: Sequelize,
  userId: string,
  eventId: string,
): Promise<boolean> {
  const [row] = await sequelize.query(
    `SELECT 1 FROM events e JOIN actors a ON a.user_id = :userId
     WHERE e.id = :eventId AND (
       a.id = e.organizer_actor_id
       OR EXISTS (SELECT 1 FROM participants p
                  WHERE p.event_id = e.id AND p.actor_id = a.id AND p.role IN (:roles))
       OR EXISTS (SELECT 1 FROM members m
                  WHERE m.parent_id = e.attributed_to_id AND m.actor_id = a.id AND m.role IN (:groupRoles)))
     LIMIT 1`,
    {
      type: QueryTypes.SELECT,
      replacements: { userId, eventId, roles: EVENT_MODERATOR_ROLES, groupRoles: GROUP_MODERATOR },
    },
  );
  return row !== undefined;
}
