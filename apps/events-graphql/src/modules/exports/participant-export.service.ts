import { canManageEvent, userManagesEvent } from '../participations/event-managers.js';
import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import { BadInput, Forbidden, NotFound, Unauthenticated, type Logger } from '@agora/core';
import { isRowId } from '@agora/db';
import type { MediaStorage } from '@agora/media';
import { QueryTypes, type Sequelize } from 'sequelize';
import type { ExportFormat } from '../../config/config.js';
import { PARTICIPATION_MESSAGES } from '../participations/participation.service.js';
import type { ParticipantRole } from '../participations/participant-row.js';
import { csvWriter } from './formats/csv.writer.js';
import type { ExportTable, ExportWriter } from './formats/export-table.js';
import { odsWriter } from './formats/ods.writer.js';
import { pdfWriter } from './formats/pdf.writer.js';

/** The reference keeps an export one hour, then its cleanup deletes it. */
export const EXPORT_LIFETIME_MS = 60 * 60_000;

export const WRITERS: Record<ExportFormat, ExportWriter> = { csv: csvWriter, pdf: pdfWriter, ods: odsWriter };

/** The reference's columns (name, status, message), and the date each participation was taken. */
export const EXPORT_COLUMNS = [
  'Participant name',
  'Participant status',
  'Participant message',
  'Participation date',
] as const;

/** The reference's labels of the roles in its exports. */
const ROLE_LABELS: Record<ParticipantRole, string> = {
  NOT_APPROVED: 'Not approved',
  NOT_CONFIRMED: 'Not confirmed',
  REJECTED: 'Rejected',
  PARTICIPANT: 'Participant',
  MODERATOR: 'Moderator',
  ADMINISTRATOR: 'Administrator',
  CREATOR: 'Creator',
};

const REFUSAL = { code: 'unknown_error' } as const;

export const EXPORT_MESSAGES = {
  notEnabled: (format: string) => `Export to format ${format.toUpperCase()} is not enabled on this instance`,
} as const;

interface ExportedParticipant {
  actorId: string;
  name: string;
  username: string;
  domain: string | null;
  role: ParticipantRole;
  message: string | null;
  insertedAt: Date;
}

/** A stored export ready to be sent: its bytes and how to name them. */
export interface ExportDownload {
  body: Readable;
  size: number;
  contentType: string;
  downloadName: string;
}

export interface ParticipantExportServiceOptions {
  sequelize: Sequelize;
  /** Where the files are kept: never served as such, only through the organizer's download. */
  storage: MediaStorage;
  /** The formats the instance offers (`config.exportFormats.eventParticipants`). */
  formats: () => readonly ExportFormat[];
  anonymousActorId: () => Promise<string>;
  clock: () => Date;
  logger: Logger;
}

/**
 * Exports of an event's participant list (issue 13 §3): the organizer asks for a file in one of the
 * enabled formats, gets its name (the reference's answer; the file is at `/exports/<format>/<name>`),
 * downloads it as the organizer, and the cleanup job deletes it after an hour.
 */
export class ParticipantExportService {
  constructor(private readonly options: ParticipantExportServiceOptions) {}

  /** Writes the export of `eventId`'s participants with `roles` (all when empty) for its organizer `profileId`. */
  async export(
    profileId: string | null,
    eventId: string,
    format: ExportFormat,
    roles: readonly ParticipantRole[],
  ): Promise<string> {
    const event = isRowId(eventId) ? await this.event(eventId) : null;
    if (!event) throw new NotFound(PARTICIPATION_MESSAGES.eventMissing(eventId), REFUSAL);
    // The organizer or a moderator of the event's group, acting as the default profile (§2.2).
    if (
      profileId === null ||
      !(await canManageEvent(this.options.sequelize, profileId, { id: eventId, ...event }))
    ) {
      throw new Forbidden(PARTICIPATION_MESSAGES.notModerator, REFUSAL);
    }
    if (!this.options.formats().includes(format)) {
      throw new BadInput(EXPORT_MESSAGES.notEnabled(format), REFUSAL);
    }
    const writer = WRITERS[format];
    const table: ExportTable = {
      title: event.title,
      columns: EXPORT_COLUMNS,
      rows: await this.rows(eventId, roles),
    };
    const bytes = await writer.render(table);
    const fileName = `${randomBytes(16).toString('base64url')}.${writer.extension}`;
    const key = `exports/${format}/${fileName}`;
    await this.options.storage.put(key, bytes, writer.contentType);
    try {
      await this.options.sequelize.query(
        `INSERT INTO participant_exports (event_id, format, file_name, file_key, download_name, file_size, inserted_at)
         VALUES (:eventId, :format, :fileName, :key, :downloadName, :size, :now)`,
        {
          replacements: {
            eventId,
            format,
            fileName,
            key,
            downloadName: `${downloadBase(event.title)}_participants.${writer.extension}`,
            size: bytes.length,
            now: this.options.clock(),
          },
        },
      );
    } catch (error) {
      // No row, no file: nothing would ever delete it.
      await this.options.storage.delete(key).catch(() => undefined);
      throw error;
    }
    return fileName;
  }

  /**
   * The file `fileName` of `format` for user `userId` (undefined: anonymous): only the user owning the
   * event's organizer profile gets it; an unknown, expired or disabled one is not found.
   */
  async download(userId: string | undefined, format: string, fileName: string): Promise<ExportDownload> {
    if (userId === undefined) throw new Unauthenticated();
    if (!(this.options.formats() as readonly string[]).includes(format)) {
      throw new NotFound(EXPORT_MESSAGES.notEnabled(format));
    }
    const [row] = await this.options.sequelize.query<{
      key: string;
      size: number;
      downloadName: string;
      eventId: string;
    }>(
      `SELECT x.file_key AS key, x.file_size AS size, x.download_name AS "downloadName",
         x.event_id::text AS "eventId"
       FROM participant_exports x
       JOIN events e ON e.id = x.event_id
       WHERE x.file_name = :fileName AND x.format = :format AND x.inserted_at > :oldest`,
      {
        type: QueryTypes.SELECT,
        replacements: { fileName, format, oldest: this.oldest() },
      },
    );
    if (!row) throw new NotFound('Export not found');
    // Whoever may export may download (the managers of the event: §2.2).
    if (!(await userManagesEvent(this.options.sequelize, userId, row.eventId))) throw new Forbidden();
    return {
      body: await this.options.storage.get(row.key),
      size: row.size,
      contentType: WRITERS[format as ExportFormat].contentType,
      downloadName: row.downloadName,
    };
  }

  /** Deletes the exports older than their lifetime, files first; returns how many went. */
  async purgeExpired(batch = 500): Promise<number> {
    let purged = 0;
    for (;;) {
      const rows = await this.options.sequelize.query<{ id: string; key: string }>(
        `SELECT id::text AS id, file_key AS key FROM participant_exports
         WHERE inserted_at <= :oldest ORDER BY inserted_at LIMIT :batch`,
        { type: QueryTypes.SELECT, replacements: { oldest: this.oldest(), batch } },
      );
      if (rows.length === 0) return purged;
      const gone: string[] = [];
      for (const row of rows) {
        try {
          await this.options.storage.delete(row.key);
          gone.push(row.id);
        } catch (err) {
          // The row stays, so the next run tries the file again.
          this.options.logger.warn({ err, key: row.key }, 'could not delete an expired export');
        }
      }
      if (gone.length > 0) {
        await this.options.sequelize.query('DELETE FROM participant_exports WHERE id IN (:gone)', {
          replacements: { gone },
        });
      }
      purged += gone.length;
      if (gone.length < rows.length || rows.length < batch) return purged;
    }
  }

  private oldest(): Date {
    return new Date(this.options.clock().getTime() - EXPORT_LIFETIME_MS);
  }

  private async event(
    id: string,
  ): Promise<{ title: string; organizerActorId: string; attributedToId: string | null } | null> {
    const [row] = await this.options.sequelize.query<{
      title: string;
      organizerActorId: string;
      attributedToId: string | null;
    }>(
      `SELECT title, organizer_actor_id::text AS "organizerActorId",
         attributed_to_id::text AS "attributedToId" FROM events WHERE id = :id`,
      { type: QueryTypes.SELECT, replacements: { id } },
    );
    return row ?? null;
  }

  /** The participants as rows of the table, in the order they joined; one query. */
  private async rows(eventId: string, roles: readonly ParticipantRole[]): Promise<string[][]> {
    const participants = await this.options.sequelize.query<ExportedParticipant>(
      `SELECT a.id::text AS "actorId", a.display_name AS name, a.username, a.domain, p.role, p.message,
         p.inserted_at AS "insertedAt"
       FROM participants p JOIN actors a ON a.id = p.actor_id
       WHERE p.event_id = :eventId${roles.length > 0 ? ' AND p.role IN (:roles)' : ''}
       ORDER BY p.id`,
      { type: QueryTypes.SELECT, replacements: { eventId, roles: [...roles] } },
    );
    const anonymousId = await this.options.anonymousActorId();
    return participants.map((participant) => [
      participant.actorId === anonymousId ? 'Anonymous participant' : displayNameAndUsername(participant),
      ROLE_LABELS[participant.role],
      participant.message ?? '',
      participant.insertedAt.toISOString().replace(/\.\d{3}Z$/, 'Z'),
    ]);
  }
}

/** As the reference names a profile in exports: `Name (@user@domain)`, or the handle alone without a name. */
function displayNameAndUsername({ name, username, domain }: ExportedParticipant): string {
  const handle = domain ? `${username}@${domain}` : username;
  return name.trim() === '' ? handle : `${name} (@${handle})`;
}

/** The title as a file name: no path separators, controls or characters systems refuse. */
function downloadBase(title: string): string {
  // eslint-disable-next-line no-control-regex
  const cleaned = title.replace(/[\u0000-\u001F\u007F/\\:*?"<>|]+/g, '_').trim();
  return (cleaned || 'event').slice(0, 120);
}
