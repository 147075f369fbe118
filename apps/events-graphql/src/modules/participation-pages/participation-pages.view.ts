import { isUuid } from '@agora/core';
import { QueryTypes, type Sequelize } from 'sequelize';
import type { ParticipantRole } from '../participations/participant-row.js';

/** What a page about one anonymous participation shows. */
export interface PageParticipation {
  eventId: string;
  eventTitle: string;
  eventUrl: string;
  role: ParticipantRole;
}

/** The reads of the pages the participation e-mails link to: one query each, by the unique token. */
export class ParticipationPagesView {
  constructor(private readonly sequelize: Sequelize) {}

  /** The participation a confirmation token names (unique index), or null. */
  async byConfirmationToken(token: string): Promise<PageParticipation | null> {
    const [row] = await this.sequelize.query<PageParticipation>(
      `SELECT e.id::text AS "eventId", e.title AS "eventTitle", e.url AS "eventUrl", p.role
       FROM participants p JOIN events e ON e.id = p.event_id
       WHERE p.confirmation_token = :token`,
      { type: QueryTypes.SELECT, replacements: { token } },
    );
    return row ?? null;
  }

  /** The participation of event `uuid` with this cancellation token, or null. */
  async byCancellationToken(uuid: string, token: string): Promise<PageParticipation | null> {
    if (!isUuid(uuid)) return null;
    // events.uuid is unique; the event's participants are read through (event_id, role, id).
    const [row] = await this.sequelize.query<PageParticipation>(
      `SELECT e.id::text AS "eventId", e.title AS "eventTitle", e.url AS "eventUrl", p.role
       FROM events e JOIN participants p ON p.event_id = e.id
       WHERE e.uuid = :uuid AND p.cancellation_token = :token
       ORDER BY p.id LIMIT 1`,
      { type: QueryTypes.SELECT, replacements: { uuid: uuid.toLowerCase(), token } },
    );
    return row ?? null;
  }
}
