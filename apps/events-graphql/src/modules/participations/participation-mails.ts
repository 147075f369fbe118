import type { Logger, Mailer } from '@agora/core';
import { QueryTypes, type Sequelize } from 'sequelize';
import type { EventRow } from '../events/event-row.js';

export interface ParticipationMailsOptions {
  sequelize: Sequelize;
  mailer: Mailer;
  publicUrl: string;
  instanceName: () => string;
  logger: Logger;
}

interface Recipient {
  email: string | null;
  confirmationToken: string | null;
  cancellationToken: string | null;
}

/**
 * The e-mails participants receive: the confirmation of an anonymous participation (with its
 * confirmation and cancellation links, pages of the web client), and the organizer's decision. Sent
 * after the change committed; a failing mailer is logged and never undoes the change.
 */
export class ParticipationMails {
  constructor(private readonly options: ParticipationMailsOptions) {}

  /** To an anonymous participant: confirm the address (and how to cancel). */
  async confirmAnonymous(participantId: string, event: EventRow): Promise<void> {
    const recipient = await this.recipient(participantId);
    if (!recipient?.email || !recipient.confirmationToken) return;
    const { publicUrl } = this.options;
    await this.send(recipient.email, `Confirm your participation to event ${event.title}`, [
      `You asked to participate in the event ${event.title} on ${this.options.instanceName()}.`,
      '',
      'Confirm your e-mail address to take part by following this link:',
      `${publicUrl}/participation/email/confirm/${recipient.confirmationToken}`,
      '',
      'You can cancel your participation at any time with this link:',
      `${publicUrl}/participation/email/cancel/${event.uuid}/${recipient.cancellationToken}`,
      '',
      "If you didn't ask for this, ignore this e-mail.",
    ]);
  }

  /** To the participant: the organizer approved or rejected the participation. */
  async decided(participantId: string, event: EventRow, role: 'PARTICIPANT' | 'REJECTED'): Promise<void> {
    const recipient = await this.recipient(participantId);
    if (!recipient?.email) return;
    const approved = role === 'PARTICIPANT';
    await this.send(
      recipient.email,
      `Your participation to event ${event.title} has been ${approved ? 'approved' : 'rejected'}`,
      approved
        ? [
            `The organizer of ${event.title} approved your participation. See you there!`,
            '',
            event.url,
            ...(recipient.cancellationToken
              ? [
                  '',
                  'You can cancel your participation with this link:',
                  `${this.options.publicUrl}/participation/email/cancel/${event.uuid}/${recipient.cancellationToken}`,
                ]
              : []),
          ]
        : [`Unfortunately, the organizer of ${event.title} rejected your participation.`, '', event.url],
    );
  }

  /** Where a participant is written to: the anonymous participant's address, or the profile's user's. */
  private async recipient(participantId: string): Promise<Recipient | null> {
    const [row] = await this.options.sequelize.query<Recipient>(
      `SELECT coalesce(p.email, u.email) AS email, p.confirmation_token AS "confirmationToken",
         p.cancellation_token AS "cancellationToken"
       FROM participants p JOIN actors a ON a.id = p.actor_id LEFT JOIN users u ON u.id = a.user_id
       WHERE p.id = :participantId`,
      { type: QueryTypes.SELECT, replacements: { participantId } },
    );
    return row ?? null;
  }

  private async send(to: string, subject: string, lines: string[]): Promise<void> {
    try {
      await this.options.mailer.send({ to, subject, text: lines.join('\n') });
    } catch (err) {
      this.options.logger.error({ err }, 'could not send a participation e-mail');
    }
  }
}
