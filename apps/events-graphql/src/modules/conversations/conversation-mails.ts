import type { JobQueue, Logger, Mailer } from '@agora/core';
import sanitizeHtml from 'sanitize-html';
import { QueryTypes, type Sequelize } from 'sequelize';

/** The job that e-mails a private message to the conversation's other participants. */
export const CONVERSATION_MAIL_JOB = 'conversations.mail';

export interface ConversationMailsOptions {
  sequelize: Sequelize;
  queue: JobQueue;
  mailer: Mailer;
  publicUrl: string;
  instanceName: () => string;
  logger: Logger;
}

interface MessageFacts {
  text: string;
  authorId: string;
  authorName: string;
  conversationId: string;
  eventTitle: string | null;
}

/**
 * Private messages e-mailed to the other participants' accounts, as the reference's notifier does
 * for `conversation_created` and `conversation_replied`: queued once the message committed, sent by a
 * worker, one e-mail per account, linking to the participant's own view of the conversation. A
 * failing mailer is logged (a retry would write twice to the others); it never fails the message.
 */
export class ConversationMails {
  constructor(private readonly options: ConversationMailsOptions) {}

  /** After a message committed: its e-mails are queued. */
  async messagePosted(commentId: string): Promise<void> {
    try {
      await this.options.queue.send(CONVERSATION_MAIL_JOB, { commentId });
    } catch (err) {
      this.options.logger.error({ err, commentId }, 'could not queue the e-mails of a private message');
    }
  }

  /** The handler of the mail job (worker and all roles). */
  async registerWorkers(): Promise<void> {
    await this.options.queue.work<{ commentId: string }>(CONVERSATION_MAIL_JOB, async (job) => {
      await this.send(job.data.commentId);
    });
  }

  /** E-mails message `commentId` to the accounts of the other participants; returns how many were sent. */
  async send(commentId: string): Promise<number> {
    const [message] = await this.options.sequelize.query<MessageFacts>(
      `SELECT c.text, c.actor_id::text AS "authorId", coalesce(nullif(a.display_name, ''), a.username) AS "authorName",
              c.conversation_id::text AS "conversationId", e.title AS "eventTitle"
         FROM comments c JOIN actors a ON a.id = c.actor_id JOIN conversations cv ON cv.id = c.conversation_id
         LEFT JOIN events e ON e.id = cv.event_id
        WHERE c.id = :commentId AND c.conversation_id IS NOT NULL AND c.deleted_at IS NULL AND c.text IS NOT NULL`,
      { type: QueryTypes.SELECT, replacements: { commentId } },
    );
    if (!message) return 0;
    // Local profiles' accounts; not the writer's own account, whichever of its profiles take part.
    const recipients = await this.options.sequelize.query<{ email: string; participantId: string }>(
      `SELECT DISTINCT ON (u.id) u.email, cp.id::text AS "participantId"
         FROM conversation_participants cp JOIN actors a ON a.id = cp.actor_id JOIN users u ON u.id = a.user_id
        WHERE cp.conversation_id = :conversationId AND a.type = 'Person' AND u.disabled IS NOT TRUE
          AND u.id IS DISTINCT FROM (SELECT author.user_id FROM actors author WHERE author.id = :authorId)
        ORDER BY u.id, cp.id`,
      {
        type: QueryTypes.SELECT,
        replacements: { conversationId: message.conversationId, authorId: message.authorId },
      },
    );
    const about = message.eventTitle ? ` about ${message.eventTitle}` : '';
    const subject = `New private message from ${message.authorName}${about}`;
    const text = plainText(message.text);
    let sent = 0;
    for (const { email, participantId } of recipients) {
      const lines = [
        `${message.authorName} sent you a private message${about} on ${this.options.instanceName()}:`,
        '',
        text,
        '',
        'Read and answer it here:',
        `${this.options.publicUrl}/conversations/${participantId}`,
      ];
      try {
        await this.options.mailer.send({ to: email, subject, text: lines.join('\n') });
        sent += 1;
      } catch (err) {
        this.options.logger.error({ err, commentId }, 'could not send a private message e-mail');
      }
    }
    return sent;
  }
}

/** The message's sanitized HTML as text: paragraphs and breaks become lines, tags go, entities are decoded. */
function plainText(html: string): string {
  const withBreaks = html.replace(/<br\s*\/?>/gi, '\n').replace(/<\/(p|div|li|h[1-6]|blockquote)>/gi, '\n');
  return sanitizeHtml(withBreaks, { allowedTags: [], allowedAttributes: {} })
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&')
    .split('\n')
    .map((line) => line.trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
