import type { JobQueue, Logger, Mailer } from '@agora/core';
import sanitizeHtml from 'sanitize-html';
import { QueryTypes, type Sequelize } from 'sequelize';
import type { CommentRow } from '../comments/comment-row.js';

/** The job that e-mails an announcement to its event's participants. */
export const ANNOUNCEMENT_JOB = 'announcements.mail';

/** Who hears announcements: the people the event counts on (not requests, refusals or its creator). */
const TOLD_OF_ANNOUNCEMENTS = ['PARTICIPANT', 'MODERATOR', 'ADMINISTRATOR'];

export interface AnnouncementMailsOptions {
  sequelize: Sequelize;
  queue: JobQueue;
  mailer: Mailer;
  instanceName: () => string;
  logger: Logger;
}

interface Announcement {
  text: string;
  authorId: string;
  eventId: string;
  eventTitle: string;
  eventUrl: string;
  authorName: string;
}

/**
 * Announcements (comments the organizer flags `isAnnouncement`) e-mailed to the event's participants:
 * queued once the comment is written, sent by a worker, one e-mail per address. A failing mailer is
 * logged (a retry would write twice to the others); it never fails the comment.
 */
export class AnnouncementMails {
  constructor(private readonly options: AnnouncementMailsOptions) {}

  /** After a comment is created: an announcement queues its e-mails. */
  async commentCreated(comment: CommentRow): Promise<void> {
    if (!comment.isAnnouncement || comment.eventId === null) return;
    try {
      await this.options.queue.send(ANNOUNCEMENT_JOB, { commentId: comment.id });
    } catch (err) {
      this.options.logger.error(
        { err, commentId: comment.id },
        'could not queue the e-mails of an announcement',
      );
    }
  }

  /** The handler of the announcement job (worker and all roles). */
  async registerWorkers(): Promise<void> {
    await this.options.queue.work<{ commentId: string }>(ANNOUNCEMENT_JOB, async (job) => {
      await this.send(job.data.commentId);
    });
  }

  /** E-mails announcement `commentId` to its event's participants; a deleted one goes to nobody. */
  async send(commentId: string): Promise<number> {
    const [announcement] = await this.options.sequelize.query<Announcement>(
      `SELECT c.text, c.actor_id::text AS "authorId", e.id::text AS "eventId", e.title AS "eventTitle",
         e.url AS "eventUrl", coalesce(nullif(a.display_name, ''), a.username) AS "authorName"
       FROM comments c JOIN events e ON e.id = c.event_id JOIN actors a ON a.id = c.actor_id
       WHERE c.id = :commentId AND c.is_announcement AND c.deleted_at IS NULL AND c.text IS NOT NULL`,
      { type: QueryTypes.SELECT, replacements: { commentId } },
    );
    if (!announcement) return 0;
    // Signed-in participants through their account's address, anonymous ones through theirs; the
    // author's own account is not written to.
    const recipients = await this.options.sequelize.query<{ email: string }>(
      `SELECT DISTINCT lower(coalesce(p.email, u.email)) AS email
       FROM participants p JOIN actors a ON a.id = p.actor_id LEFT JOIN users u ON u.id = a.user_id
       WHERE p.event_id = :eventId AND p.role IN (:roles) AND coalesce(p.email, u.email) IS NOT NULL
         AND (a.user_id IS NULL OR a.user_id IS DISTINCT FROM
              (SELECT author.user_id FROM actors author WHERE author.id = :authorId))`,
      {
        type: QueryTypes.SELECT,
        replacements: {
          eventId: announcement.eventId,
          roles: TOLD_OF_ANNOUNCEMENTS,
          authorId: announcement.authorId,
        },
      },
    );
    const text = plainText(announcement.text);
    const subject = `📢 Announcement for ${announcement.eventTitle}`;
    const lines = [
      `${announcement.authorName}, the organizer of ${announcement.eventTitle}, sent an announcement on ${this.options.instanceName()}:`,
      '',
      text,
      '',
      announcement.eventUrl,
      '',
      'You receive this e-mail because you take part in this event.',
    ];
    let sent = 0;
    for (const { email } of recipients) {
      try {
        await this.options.mailer.send({ to: email, subject, text: lines.join('\n') });
        sent += 1;
      } catch (err) {
        // Not retried: a retry of the job would write again to everyone already told.
        this.options.logger.error({ err, commentId }, 'could not send an announcement e-mail');
      }
    }
    return sent;
  }
}

/** The comment's sanitized HTML as text: paragraphs and breaks become lines, tags go, entities are decoded. */
function plainText(html: string): string {
  const withBreaks = html.replace(/<br\s*\/?>/gi, '\n').replace(/<\/(p|div|li|h[1-6]|blockquote)>/gi, '\n');
  const text = sanitizeHtml(withBreaks, { allowedTags: [], allowedAttributes: {} });
  return decodeEntities(text)
    .split('\n')
    .map((line) => line.trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

function decodeEntities(text: string): string {
  return text
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');
}
