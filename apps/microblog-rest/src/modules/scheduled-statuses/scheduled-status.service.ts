import { BadInput, isAppError, NotFound, type JobQueue, type Logger, type PeriodicJob } from '@agora/core';
import { isRowId } from '@agora/db';
import type { Actor, ActorStore } from '@agora/federation';
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import { pageRows, pageSql, type Page, type PageRequest } from '../../http/link-pagination.js';
import {
  defineMediaAttachmentModel,
  toMediaAttachment,
  type MediaAttachmentRow,
} from '../media/media-attachment.model.js';
import type { NewStatus, StatusService } from '../statuses/status.service.js';
import type { Visibility } from '../statuses/status.model.js';

/** Publishes a scheduled status at its time (delayed job; `publish` checks the time again). */
export const PUBLISH_SCHEDULED_JOB = 'microblog.scheduled-statuses.publish';
/** The sweep that publishes due statuses whose job was lost (periodic, on workers). */
export const PUBLISH_DUE_JOB = 'microblog.scheduled-statuses.publish-due';
const RECORD_NOT_FOUND = 'Record not found';
/** The reference's limits (ScheduledStatus): 5 minutes ahead at least, 300 in all, 25 per day. */
export const MINIMUM_OFFSET_SECONDS = 5 * 60;
const TOTAL_LIMIT = 300;
const DAILY_LIMIT = 25;

export const SCHEDULED_MESSAGES = {
  tooSoon: 'Validation failed: Scheduled at The scheduled date must be in the future',
  overTotal: `Validation failed: You have exceeded the limit of ${TOTAL_LIMIT} scheduled posts`,
  overDaily: `Validation failed: You have exceeded the limit of ${DAILY_LIMIT} scheduled posts for today`,
} as const;

/** The parameters a scheduled status keeps, as the ScheduledStatus entity shows them (`params`). */
export interface ScheduledParams {
  text: string;
  poll: { options: string[]; expires_in: number | null; multiple: boolean; hide_totals: boolean } | null;
  media_ids: string[] | null;
  sensitive: boolean | null;
  spoiler_text: string | null;
  visibility: Visibility | null;
  in_reply_to_id: string | null;
  language: string | null;
  application_id: string | null;
  idempotency: string | null;
}

export interface ScheduledStatusView {
  id: string;
  scheduledAt: Date;
  params: ScheduledParams;
  media: MediaAttachmentRow[];
}

export interface ScheduledStatusServiceDeps {
  sequelize: Sequelize;
  queue: JobQueue;
  logger: Logger;
  actors: ActorStore;
  statuses: StatusService;
}

interface Row {
  id: string;
  scheduledAt: Date | string;
  params: ScheduledParams;
  cursor: string;
}

/**
 * Statuses posted later (POST /api/v1/statuses with `scheduled_at`): checked as a post is, kept with
 * their media, published by a job at their time through `StatusService.create` (so the home fan-out
 * and the poll's close job happen as for any post), listed, moved and deleted by their owner.
 */
export class ScheduledStatusService {
  constructor(private readonly deps: ScheduledStatusServiceDeps) {}

  /** Keeps a status for `scheduledAt`. Errors: BadInput (too soon, limits, the status's own checks), NotFound. */
  async schedule(author: Actor, input: NewStatus, scheduledAt: Date): Promise<ScheduledStatusView> {
    this.checkTime(scheduledAt);
    const { mediaIds } = await this.deps.statuses.checkNew(author, input);
    const { sequelize } = this.deps;
    const params: ScheduledParams = {
      text: input.text ?? '',
      poll: input.poll
        ? {
            options: input.poll.options,
            expires_in: input.poll.expiresIn ?? null,
            multiple: input.poll.multiple,
            hide_totals: input.poll.hideTotals,
          }
        : null,
      media_ids: mediaIds.length > 0 ? mediaIds : null,
      sensitive: input.sensitive ?? null,
      spoiler_text: input.spoilerText ?? null,
      visibility: input.visibility ?? null,
      in_reply_to_id: input.inReplyToId ?? null,
      language: input.language ?? null,
      application_id: input.applicationId,
      idempotency: input.idempotencyKey ?? null,
    };
    const { id, fresh } = await sequelize.transaction(async (transaction) => {
      // One account's schedulings one at a time, so the limits hold under concurrent requests.
      await sequelize.query(
        "SELECT pg_advisory_xact_lock(hashtextextended('scheduled_statuses:' || $1::text, 0))",
        {
          bind: [author.id],
          transaction,
        },
      );
      // An Idempotency-Key already used within the hour answers what it scheduled (as a post's).
      if (input.idempotencyKey !== undefined) {
        const [twin] = await sequelize.query<{ id: string }>(
          `SELECT id::text AS id FROM scheduled_statuses
            WHERE account_id = $1 AND params->>'idempotency' = $2
              AND created_at > now() - interval '1 hour'`,
          { bind: [author.id, input.idempotencyKey], type: QueryTypes.SELECT, transaction },
        );
        if (twin) return { id: twin.id, fresh: false };
      }
      await this.checkLimits(author.id, scheduledAt, null, transaction);
      await this.deps.statuses.attachableMedia(author.id, mediaIds, null, transaction);
      const [row] = await sequelize.query<{ id: string }>(
        `INSERT INTO scheduled_statuses (account_id, scheduled_at, params) VALUES ($1, $2, $3::jsonb)
         RETURNING id::text AS id`,
        { bind: [author.id, scheduledAt, JSON.stringify(params)], type: QueryTypes.SELECT, transaction },
      );
      if (mediaIds.length > 0) {
        await sequelize.query(
          'UPDATE media_attachments SET scheduled_status_id = $1 WHERE id = ANY($2::bigint[])',
          { bind: [row!.id, mediaIds], transaction },
        );
      }
      return { id: row!.id, fresh: true };
    });
    if (fresh) await this.publishLater(id, scheduledAt);
    return this.get(author.id, id);
  }

  /** GET /api/v1/scheduled_statuses: the owner's, paged by id (newest first). */
  async list(accountId: string, page: PageRequest): Promise<Page<ScheduledStatusView>> {
    const bind: unknown[] = [accountId];
    const sql = pageSql('id', page, bind);
    const rows = await this.deps.sequelize.query<Row>(
      `SELECT id::text AS id, id::text AS cursor, scheduled_at AS "scheduledAt", params
         FROM scheduled_statuses WHERE account_id = $1${sql.where}${sql.tail}`,
      { bind, type: QueryTypes.SELECT },
    );
    const paged = pageRows(rows, page);
    return { ...paged, items: await this.hydrate(paged.items) };
  }

  /** GET /api/v1/scheduled_statuses/:id (the owner's only). Errors: NotFound. */
  async get(accountId: string, id: string): Promise<ScheduledStatusView> {
    const row = await this.ownRow(accountId, id);
    const [view] = await this.hydrate([row]);
    return view!;
  }

  /** PUT /api/v1/scheduled_statuses/:id: a new time. Errors: NotFound, BadInput. */
  async reschedule(accountId: string, id: string, scheduledAt: Date): Promise<ScheduledStatusView> {
    const own = await this.ownRow(accountId, id);
    this.checkTime(scheduledAt);
    const { sequelize } = this.deps;
    await sequelize.transaction(async (transaction) => {
      await sequelize.query(
        "SELECT pg_advisory_xact_lock(hashtextextended('scheduled_statuses:' || $1::text, 0))",
        {
          bind: [accountId],
          transaction,
        },
      );
      await this.checkLimits(accountId, scheduledAt, own.id, transaction);
      await sequelize.query(
        'UPDATE scheduled_statuses SET scheduled_at = $2, updated_at = now() WHERE id = $1',
        {
          bind: [own.id, scheduledAt],
          transaction,
        },
      );
    });
    await this.publishLater(own.id, scheduledAt);
    return this.get(accountId, own.id);
  }

  /** DELETE /api/v1/scheduled_statuses/:id: its media are free again. Errors: NotFound. */
  async remove(accountId: string, id: string): Promise<void> {
    const own = await this.ownRow(accountId, id);
    await this.deps.sequelize.query('DELETE FROM scheduled_statuses WHERE id = $1', { bind: [own.id] });
  }

  /**
   * The job's work: posts a scheduled status whose time has come, as its author, and forgets it.
   * Retried, it posts once (an idempotency key names the scheduled status). A status the author can
   * no longer post (its parent went) is dropped. Early, it asks to run again at the time.
   */
  async publish(id: string): Promise<string | null> {
    const { sequelize, logger } = this.deps;
    const [row] = await sequelize.query<{
      accountId: string;
      params: ScheduledParams;
      due: boolean;
      seconds: number;
    }>(
      `SELECT account_id::text AS "accountId", params, scheduled_at <= now() AS due,
              greatest(ceil(extract(epoch FROM scheduled_at - now())), 1)::int AS seconds
         FROM scheduled_statuses WHERE id = $1`,
      { bind: [id], type: QueryTypes.SELECT },
    );
    if (!row) return null;
    if (!row.due) {
      await this.deps.queue.send(PUBLISH_SCHEDULED_JOB, { id }, { startAfterSeconds: row.seconds });
      return null;
    }
    const author = await this.deps.actors.findById(row.accountId);
    if (!author) return null;
    const { params } = row;
    let statusId: string | null = null;
    try {
      statusId = await this.deps.statuses.create(author, {
        text: params.text,
        mediaIds: params.media_ids ?? [],
        inReplyToId: params.in_reply_to_id ?? undefined,
        sensitive: params.sensitive ?? undefined,
        spoilerText: params.spoiler_text ?? undefined,
        visibility: params.visibility ?? undefined,
        language: params.language ?? undefined,
        idempotencyKey: `scheduled:${id}`,
        applicationId: params.application_id,
        poll: params.poll
          ? {
              options: params.poll.options,
              expiresIn: params.poll.expires_in ?? undefined,
              multiple: params.poll.multiple,
              hideTotals: params.poll.hide_totals,
            }
          : undefined,
        scheduledStatusId: id,
      });
    } catch (error) {
      // What the author could post then but not now (a parent deleted, media gone): nothing to retry.
      if (!isAppError(error) || error.status >= 500) throw error;
      logger.warn({ err: error, scheduledStatusId: id }, 'a scheduled status could not be posted');
    }
    await sequelize.query('DELETE FROM scheduled_statuses WHERE id = $1', { bind: [id] });
    return statusId;
  }

  /** Publishes statuses a minute past their time (their own job normally ran already). */
  async publishDue(limit = 100): Promise<number> {
    const due = await this.deps.sequelize.query<{ id: string }>(
      `SELECT id::text AS id FROM scheduled_statuses WHERE scheduled_at <= now() - interval '1 minute'
        ORDER BY scheduled_at LIMIT $1`,
      { bind: [limit], type: QueryTypes.SELECT },
    );
    let published = 0;
    for (const { id } of due) if (await this.publish(id)) published += 1;
    return published;
  }

  /** The backstop sweep, for the app's PeriodicJobs. */
  periodicJobs(): PeriodicJob[] {
    return [{ name: PUBLISH_DUE_JOB, periodMs: 5 * 60_000, run: () => this.publishDue() }];
  }

  /** The publishing worker (a no-op on role web); call before the queue starts. */
  async registerWorker(): Promise<void> {
    await this.deps.queue.work<{ id: string }>(PUBLISH_SCHEDULED_JOB, async (job) => {
      await this.publish(job.data.id);
    });
  }

  private async publishLater(id: string, at: Date): Promise<void> {
    const seconds = Math.max(0, Math.ceil((at.getTime() - Date.now()) / 1000));
    await this.deps.queue.send(PUBLISH_SCHEDULED_JOB, { id }, { startAfterSeconds: seconds });
  }

  private checkTime(scheduledAt: Date): void {
    if (scheduledAt.getTime() <= Date.now() + MINIMUM_OFFSET_SECONDS * 1000) {
      throw new BadInput(SCHEDULED_MESSAGES.tooSoon);
    }
  }

  private async checkLimits(
    accountId: string,
    scheduledAt: Date,
    except: string | null,
    transaction: Transaction,
  ): Promise<void> {
    const [counts] = await this.deps.sequelize.query<{ total: number; day: number }>(
      `SELECT count(*)::int AS total,
              count(*) FILTER (WHERE scheduled_at >= date_trunc('day', $2::timestamptz, 'UTC')
                                 AND scheduled_at < date_trunc('day', $2::timestamptz, 'UTC') + interval '1 day')::int AS day
         FROM scheduled_statuses WHERE account_id = $1 AND ($3::bigint IS NULL OR id <> $3::bigint)`,
      { bind: [accountId, scheduledAt, except], type: QueryTypes.SELECT, transaction },
    );
    if ((counts?.total ?? 0) >= TOTAL_LIMIT && except === null)
      throw new BadInput(SCHEDULED_MESSAGES.overTotal);
    if ((counts?.day ?? 0) >= DAILY_LIMIT) throw new BadInput(SCHEDULED_MESSAGES.overDaily);
  }

  private async ownRow(accountId: string, id: string): Promise<Row> {
    if (!isRowId(id)) throw new NotFound(RECORD_NOT_FOUND);
    const [row] = await this.deps.sequelize.query<Row>(
      `SELECT id::text AS id, id::text AS cursor, scheduled_at AS "scheduledAt", params
         FROM scheduled_statuses WHERE id = $1 AND account_id = $2`,
      { bind: [id, accountId], type: QueryTypes.SELECT },
    );
    if (!row) throw new NotFound(RECORD_NOT_FOUND);
    return row;
  }

  /** Rows with their media: one query for the media of a whole page. */
  private async hydrate(rows: Row[]): Promise<ScheduledStatusView[]> {
    const mediaIds = rows.flatMap((row) => row.params.media_ids ?? []);
    const media =
      mediaIds.length === 0
        ? []
        : (await defineMediaAttachmentModel(this.deps.sequelize).findAll({ where: { id: mediaIds } })).map(
            toMediaAttachment,
          );
    const byId = new Map(media.map((item) => [String(item.id), item]));
    return rows.map((row) => ({
      id: row.id,
      scheduledAt: new Date(row.scheduledAt),
      params: row.params,
      media: (row.params.media_ids ?? []).flatMap((mediaId) => byId.get(mediaId) ?? []),
    }));
  }
}
