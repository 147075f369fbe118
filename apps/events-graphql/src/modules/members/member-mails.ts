import type { JobQueue, Logger, Mailer } from '@agora/core';
import { QueryTypes, type Sequelize } from 'sequelize';

/** The digest of pending membership requests, sent at the end of an administrator's chosen period. */
export const PENDING_MEMBERSHIPS_JOB = 'members.pending-digest';
/** One membership's e-mails (an invitation, an approval, a request), sent by a worker, never by the request. */
export const MEMBERSHIP_MAIL_JOB = 'members.mail';

type MembershipMail =
  | { kind: 'invited' | 'approved'; memberId: string }
  | { kind: 'requested'; memberId: string; groupId: string };

/** How long a digest waits, by `notificationPendingMembership` (DIRECT mails at once, NONE never). */
const DIGEST_DELAY_SECONDS: Record<string, number> = {
  ONE_HOUR: 3600,
  ONE_DAY: 86_400,
  ONE_WEEK: 604_800,
};

export interface MemberMailsOptions {
  sequelize: Sequelize;
  mailer: Mailer;
  queue: JobQueue;
  publicUrl: string;
  instanceName: () => string;
  logger: Logger;
}

interface MembershipFacts {
  email: string | null;
  groupName: string;
  groupUsername: string;
  inviterName: string | null;
}

/**
 * The e-mails of memberships: an invitation to the invited profile's user, the approval to the
 * member's, and a membership request to the group's administrators as each one's
 * `notificationPendingMembership` asks (at once, in a digest, or never). Queued after the change
 * committed and sent by a worker (a job), so no request waits on the mailer.
 */
export class MemberMails {
  constructor(private readonly options: MemberMailsOptions) {}

  /** Runs the mails and the digests on worker roles. */
  async registerWorkers(): Promise<void> {
    await this.options.queue.work<MembershipMail>(MEMBERSHIP_MAIL_JOB, async (job) => {
      const mail = job.data;
      if (mail.kind === 'requested') await this.sendRequested(mail.memberId, mail.groupId);
      else if (mail.kind === 'invited') await this.sendInvited(mail.memberId);
      else await this.sendApproved(mail.memberId);
    });
    await this.options.queue.work<{ userId: string }>(PENDING_MEMBERSHIPS_JOB, async (job) => {
      await this.sendDigest(job.data.userId);
    });
  }

  /** To the invited profile's user. */
  invited(memberId: string): Promise<void> {
    return this.enqueue({ kind: 'invited', memberId });
  }

  /** To the member's user: a moderator approved the request. */
  approved(memberId: string): Promise<void> {
    return this.enqueue({ kind: 'approved', memberId });
  }

  /** To each administrator of the group: someone asks to join (at once, or a digest later). */
  requested(memberId: string, groupId: string): Promise<void> {
    return this.enqueue({ kind: 'requested', memberId, groupId });
  }

  /** Queued after the change committed; a queue that fails is logged and never undoes the change. */
  private async enqueue(mail: MembershipMail): Promise<void> {
    try {
      await this.options.queue.send(MEMBERSHIP_MAIL_JOB, mail);
    } catch (err) {
      this.options.logger.error({ err, kind: mail.kind }, 'could not queue a membership e-mail');
    }
  }

  private async sendInvited(memberId: string): Promise<void> {
    const facts = await this.facts(memberId);
    if (!facts?.email) return;
    const inviter = facts.inviterName ?? 'A moderator';
    await this.send(facts.email, `You have been invited by ${inviter} to join group ${facts.groupName}`, [
      `${inviter} invited you to join the group ${facts.groupName} on ${this.options.instanceName()}.`,
      '',
      'See the invitation, and accept or decline it, on the group page:',
      this.groupUrl(facts.groupUsername),
    ]);
  }

  private async sendApproved(memberId: string): Promise<void> {
    const facts = await this.facts(memberId);
    if (!facts?.email) return;
    await this.send(facts.email, `Your membership request for group ${facts.groupName} has been approved`, [
      `You are now a member of the group ${facts.groupName}.`,
      '',
      this.groupUrl(facts.groupUsername),
    ]);
  }

  private async sendRequested(memberId: string, groupId: string): Promise<void> {
    const facts = await this.facts(memberId);
    if (!facts) return;
    const administrators = await this.options.sequelize.query<{
      userId: string;
      email: string;
      pending: string;
    }>(
      `SELECT DISTINCT u.id::text AS "userId", u.email,
         coalesce(s.notification_pending_membership, 'ONE_DAY') AS pending
       FROM members m JOIN actors a ON a.id = m.actor_id JOIN users u ON u.id = a.user_id
       LEFT JOIN user_settings s ON s.user_id = u.id
       WHERE m.parent_id = :groupId AND m.role IN ('ADMINISTRATOR', 'CREATOR') AND NOT u.disabled`,
      { type: QueryTypes.SELECT, replacements: { groupId } },
    );
    for (const administrator of administrators) {
      if (administrator.pending === 'DIRECT') {
        await this.send(administrator.email, `New membership request for group ${facts.groupName}`, [
          `Someone asked to join the group ${facts.groupName}. Approve or reject the request on the group's members page:`,
          '',
          `${this.groupUrl(facts.groupUsername)}/settings/members`,
        ]);
        continue;
      }
      const delay = DIGEST_DELAY_SECONDS[administrator.pending];
      if (delay === undefined) continue;
      // One digest per user and period, whatever number of requests arrives meanwhile.
      const slot = Math.floor(Date.now() / 1000 / delay);
      try {
        await this.options.queue.send(
          PENDING_MEMBERSHIPS_JOB,
          { userId: administrator.userId },
          {
            startAfterSeconds: delay,
            singletonKey: `${administrator.userId}@${administrator.pending}:${slot}`,
          },
        );
      } catch (err) {
        this.options.logger.error({ err }, 'could not schedule a membership digest');
      }
    }
  }

  /** The digest: the requests still pending in the groups the user administers, if any. */
  async sendDigest(userId: string): Promise<void> {
    const rows = await this.options.sequelize.query<{ email: string; groupName: string; count: number }>(
      `SELECT u.email, coalesce(nullif(g.display_name, ''), g.username) AS "groupName", count(r.id)::int AS count
       FROM users u JOIN actors a ON a.user_id = u.id
       JOIN members m ON m.actor_id = a.id AND m.role IN ('ADMINISTRATOR', 'CREATOR')
       JOIN actors g ON g.id = m.parent_id
       JOIN members r ON r.parent_id = m.parent_id AND r.role = 'NOT_APPROVED'
       WHERE u.id = :userId AND NOT u.disabled
       GROUP BY u.email, g.id ORDER BY g.id`,
      { type: QueryTypes.SELECT, replacements: { userId } },
    );
    if (rows.length === 0) return;
    const total = rows.reduce((sum, row) => sum + row.count, 0);
    await this.send(rows[0]!.email, `${total} pending membership request(s)`, [
      'These groups you administer have membership requests waiting:',
      '',
      ...rows.map((row) => `- ${row.groupName}: ${row.count}`),
    ]);
  }

  private groupUrl(username: string): string {
    return `${this.options.publicUrl}/@${encodeURIComponent(username)}`;
  }

  private async facts(memberId: string): Promise<MembershipFacts | null> {
    const [row] = await this.options.sequelize.query<MembershipFacts>(
      `SELECT u.email, coalesce(nullif(g.display_name, ''), g.username) AS "groupName",
         g.username AS "groupUsername", nullif(coalesce(nullif(i.display_name, ''), i.username), '') AS "inviterName"
       FROM members m JOIN actors a ON a.id = m.actor_id JOIN actors g ON g.id = m.parent_id
       LEFT JOIN users u ON u.id = a.user_id AND NOT u.disabled
       LEFT JOIN actors i ON i.id = m.invited_by_id
       WHERE m.id = :memberId`,
      { type: QueryTypes.SELECT, replacements: { memberId } },
    );
    return row ?? null;
  }

  private async send(to: string, subject: string, lines: string[]): Promise<void> {
    try {
      await this.options.mailer.send({ to, subject, text: lines.join('\n') });
    } catch (err) {
      this.options.logger.error({ err }, 'could not send a membership e-mail');
    }
  }
}
