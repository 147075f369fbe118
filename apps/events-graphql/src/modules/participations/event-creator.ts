import type { Sequelize, Transaction } from 'sequelize';

/** The organizer of a new event is its CREATOR participant, in the transaction that creates the event. */
export async function addEventCreator(
  sequelize: Sequelize,
  eventId: string,
  actorId: string,
  transaction: Transaction,
): Promise<void> {
  await sequelize.query(
    `INSERT INTO participants (event_id, actor_id, role) VALUES (:eventId, :actorId, 'CREATOR')`,
    { transaction, replacements: { eventId, actorId } },
  );
}
