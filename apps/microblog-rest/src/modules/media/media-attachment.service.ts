import { mkdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { BadInput, NotFound, type JobQueue, type Logger } from '@agora/core';
import {
  purgeOrphanFiles,
  type MediaLimits,
  type MediaPipeline,
  type MediaStorage,
  type ProcessedMedia,
} from '@agora/media';
import type { Sequelize } from 'sequelize';
import {
  defineMediaAttachmentModel,
  toMediaAttachment,
  type MediaAttachmentModel,
  type MediaAttachmentRow,
  type MediaFileKeys,
} from './media-attachment.model.js';
import { mediaFamily } from './media-sniff.js';
import type { UploadedFile } from './multipart-upload.js';
import { blankFileError, contentTypeError, fileSizeError, toUploadError } from './upload-errors.js';

/** The queue that processes video and audio uploads of POST /api/v2/media in the background. */
export const PROCESS_MEDIA_JOB = 'microblog.media.process';
// Retries after the first attempt; after the last one the upload is marked failed.
const JOB_RETRIES = 2;

export const RECORD_NOT_FOUND = 'Record not found';

export interface MediaUpload {
  file: UploadedFile | undefined;
  thumbnail?: UploadedFile | undefined;
  description?: string | undefined;
  /** Mastodon's "x,y", each in [-1, 1]. */
  focus?: string | undefined;
}

export interface MediaPatch {
  description?: string | undefined;
  focus?: string | undefined;
  thumbnail?: UploadedFile | undefined;
}

export interface MediaAttachmentServiceDeps {
  sequelize: Sequelize;
  pipeline: MediaPipeline;
  storage: MediaStorage;
  queue: JobQueue;
  logger: Logger;
  limits: MediaLimits;
  descriptionLimit: number;
  /** Uploads waiting for the worker (and the request's temporary files) live here, never served. */
  incomingDir: string;
}

/**
 * Media attachments of local accounts: uploads processed by the media pipeline, now (images, and
 * everything on the v1 route) or by a queued job (video and audio on v2), visible to their owner only
 * until a status takes them.
 */
export class MediaAttachmentService {
  readonly model: MediaAttachmentModel;

  constructor(private readonly deps: MediaAttachmentServiceDeps) {
    this.model = defineMediaAttachmentModel(deps.sequelize);
  }

  /** The public URL of a stored file. */
  urlOf(key: string): string {
    return this.deps.storage.url(key);
  }

  /**
   * POST /api/v1/media (`background: false`) and /api/v2/media (`background: true`: video and audio
   * are queued and come back `queued`). Errors: BadInput "Validation failed: …"; nothing is kept.
   */
  async create(
    accountId: string,
    upload: MediaUpload,
    options: { background: boolean },
  ): Promise<MediaAttachmentRow> {
    try {
      return await this.createFrom(accountId, upload, options);
    } finally {
      // The request's temporary files go before it is answered (a queued one was moved already).
      await discardUploads(upload.file, upload.thumbnail);
    }
  }

  private async createFrom(
    accountId: string,
    upload: MediaUpload,
    options: { background: boolean },
  ): Promise<MediaAttachmentRow> {
    const { file } = upload;
    if (!file || file.size === 0) throw blankFileError('File');
    const description = this.description(upload.description);
    const focus = parseFocus(upload.focus);
    const sniffed = await mediaFamily(file.path);
    const limit = sniffed?.family === 'image' ? this.deps.limits.imageBytes : this.deps.limits.videoBytes;
    if (file.truncated || file.size > limit) throw fileSizeError('File', limit);
    if (options.background && sniffed && sniffed.family !== 'image') {
      return this.enqueue(accountId, file, sniffed.family, {
        description,
        focus,
        thumbnail: upload.thumbnail,
      });
    }

    const thumbnail = upload.thumbnail ? await this.storeThumbnail(upload.thumbnail) : {};
    let processed: ProcessedMedia;
    try {
      processed = await this.deps.pipeline.process({ input: file.path, ...(focus ? { focus } : {}) });
    } catch (error) {
      await this.removeKeys(thumbnail);
      throw toUploadError(error, 'File');
    }
    try {
      const row = await this.model.create({
        accountId,
        ...completed(processed),
        fileKeys: { ...keysOf(processed), ...thumbnail },
        description,
      });
      return toMediaAttachment(row);
    } catch (error) {
      await this.removeKeys({ ...keysOf(processed), ...thumbnail });
      throw error;
    }
  }

  /** GET /api/v1/media/:id: the caller's own, not yet attached upload. Errors: NotFound. */
  async findOwn(accountId: string, id: string): Promise<MediaAttachmentRow> {
    return toMediaAttachment(await this.ownRow(accountId, id));
  }

  /** PUT /api/v1/media/:id: description, focal point, custom thumbnail. Errors: NotFound, BadInput. */
  async update(accountId: string, id: string, patch: MediaPatch): Promise<MediaAttachmentRow> {
    const row = await this.ownRow(accountId, id);
    const changes: Partial<MediaAttachmentRow> = {};
    if (patch.description !== undefined) changes.description = this.description(patch.description);
    const focus = parseFocus(patch.focus);
    const thumbnail = patch.thumbnail
      ? await this.storeThumbnail(patch.thumbnail).finally(() => discardUploads(patch.thumbnail))
      : undefined;
    const before = row.get().fileKeys;
    try {
      await this.deps.sequelize.transaction(async (transaction) => {
        // Locked: a finishing background job merges its results into this same row.
        await row.reload({ transaction, lock: transaction.LOCK.UPDATE });
        if (focus) changes.meta = { ...row.get().meta, focus };
        if (thumbnail) changes.fileKeys = { ...row.get().fileKeys, ...thumbnail };
        await row.update({ ...changes, updatedAt: new Date() }, { transaction });
      });
    } catch (error) {
      if (thumbnail) await this.removeKeys(thumbnail);
      throw error;
    }
    if (thumbnail)
      await this.removeKeys({ thumbnail: before.thumbnail, thumbnailSmall: before.thumbnailSmall });
    return toMediaAttachment(row);
  }

  /** DELETE /api/v1/media/:id: an unattached upload and its files. Errors: NotFound. */
  async remove(accountId: string, id: string): Promise<void> {
    const row = await this.ownRow(accountId, id);
    await row.destroy();
    await this.removeKeys(row.get().fileKeys);
    await rm(this.incomingPath(String(row.get().id)), { force: true });
  }

  /** Runs queued uploads in this process (a no-op on role web); call before the queue starts. */
  async registerWorker(): Promise<void> {
    await this.deps.queue.work<{ id: string }>(PROCESS_MEDIA_JOB, async (job) => {
      await this.processQueued(job.data.id, job.retryCount >= JOB_RETRIES);
    });
  }

  private async enqueue(
    accountId: string,
    file: UploadedFile,
    family: 'video' | 'audio',
    options: {
      description: string | null;
      focus: { x: number; y: number } | undefined;
      thumbnail?: UploadedFile | undefined;
    },
  ): Promise<MediaAttachmentRow> {
    const thumbnail = options.thumbnail ? await this.storeThumbnail(options.thumbnail) : {};
    let row;
    try {
      row = await this.model.create({
        accountId,
        type: family,
        processing: 'queued',
        fileKeys: thumbnail,
        meta: options.focus ? { focus: options.focus } : {},
        description: options.description,
      });
    } catch (error) {
      await this.removeKeys(thumbnail);
      throw error;
    }
    const id = String(row.get().id);
    try {
      await mkdir(this.deps.incomingDir, { recursive: true });
      await rename(file.path, this.incomingPath(id));
      await this.deps.queue.send(
        PROCESS_MEDIA_JOB,
        { id },
        { retryLimit: JOB_RETRIES, expireInSeconds: 900 },
      );
    } catch (error) {
      await row.destroy();
      await rm(this.incomingPath(id), { force: true });
      await this.removeKeys(thumbnail);
      throw error;
    }
    return toMediaAttachment(row);
  }

  /** The job: process the waiting upload, store the result in its row, drop the upload. */
  private async processQueued(id: string, lastAttempt: boolean): Promise<void> {
    const incoming = this.incomingPath(id);
    const row = await this.model.findByPk(id);
    const state = row?.get('processing');
    if (!row || state === 'complete' || state === 'failed') {
      await rm(incoming, { force: true });
      return;
    }
    await row.update({ processing: 'in_progress', updatedAt: new Date() });
    let processed: ProcessedMedia;
    try {
      const focus = row.get().meta.focus;
      processed = await this.deps.pipeline.process({ input: incoming, ...(focus ? { focus } : {}) });
    } catch (error) {
      // A refused file never gets better: no retry. Other failures retry until the last attempt.
      if (!(error instanceof BadInput) && !lastAttempt) throw error;
      if (!(error instanceof BadInput))
        this.deps.logger.error({ err: error, mediaId: id }, 'media processing failed');
      await this.model.update({ processing: 'failed', updatedAt: new Date() }, { where: { id } });
      await rm(incoming, { force: true });
      return;
    }
    try {
      const kept = await this.deps.sequelize.transaction(async (transaction) => {
        const current = await this.model.findByPk(id, { transaction, lock: transaction.LOCK.UPDATE });
        if (!current) return false;
        const { focus } = current.get().meta;
        await current.update(
          {
            ...completed(processed),
            fileKeys: { ...current.get().fileKeys, ...keysOf(processed) },
            meta: { ...processed.meta, ...(focus ? { focus } : {}) },
            updatedAt: new Date(),
          },
          { transaction },
        );
        return true;
      });
      // Deleted while it was processed: its files go too.
      if (!kept) await this.deps.pipeline.remove(processed);
    } catch (error) {
      await this.deps.pipeline.remove(processed);
      throw error;
    }
    await rm(incoming, { force: true });
  }

  private async storeThumbnail(upload: UploadedFile): Promise<MediaFileKeys> {
    if (upload.size === 0) throw blankFileError('Thumbnail');
    if (upload.truncated || upload.size > this.deps.limits.imageBytes) {
      throw fileSizeError('Thumbnail', this.deps.limits.imageBytes);
    }
    let processed: ProcessedMedia;
    try {
      processed = await this.deps.pipeline.process({ input: upload.path });
    } catch (error) {
      throw toUploadError(error, 'Thumbnail');
    }
    if (processed.type !== 'image') {
      await this.deps.pipeline.remove(processed);
      throw contentTypeError('Thumbnail');
    }
    const keys: MediaFileKeys = { thumbnail: processed.files.original.key };
    if (processed.files.small) keys.thumbnailSmall = processed.files.small.key;
    return keys;
  }

  private async ownRow(accountId: string, id: string) {
    const row = /^\d{1,18}$/.test(id)
      ? await this.model.findOne({ where: { id, accountId, statusId: null } })
      : null;
    if (!row) throw new NotFound(RECORD_NOT_FOUND);
    return row;
  }

  private description(value: string | undefined): string | null {
    if (value === undefined || value === '') return null;
    if ([...value].length > this.deps.descriptionLimit) {
      throw new BadInput(
        `Validation failed: Description is too long (maximum is ${this.deps.descriptionLimit} characters)`,
      );
    }
    return value;
  }

  /**
   * Deletes the files of attachments that went with their account (queued by the table's trigger);
   * returns how many files went. Attachments never share files: each upload has keys of its own.
   */
  purgeOrphanFiles(): Promise<number> {
    return purgeOrphanFiles({
      sequelize: this.deps.sequelize,
      logger: this.deps.logger,
      deleteFile: (key) => this.deps.storage.delete(key),
      stillReferenced: () => Promise.resolve(new Set<string>()),
    });
  }

  private async removeKeys(keys: MediaFileKeys): Promise<void> {
    const list = Object.values(keys).filter((key): key is string => typeof key === 'string');
    if (list.length === 0) return;
    await this.deps.pipeline.remove(list).catch((error: unknown) => {
      this.deps.logger.warn({ err: error }, 'could not remove media files');
    });
  }

  private incomingPath(id: string): string {
    return path.join(this.deps.incomingDir, `media-${id}`);
  }
}

async function discardUploads(...uploads: Array<UploadedFile | undefined>): Promise<void> {
  await Promise.all(uploads.map((upload) => upload && rm(upload.path, { force: true })));
}

function keysOf(processed: ProcessedMedia): MediaFileKeys {
  const keys: MediaFileKeys = { original: processed.files.original.key };
  if (processed.files.small) keys.small = processed.files.small.key;
  return keys;
}

function completed(processed: ProcessedMedia) {
  return {
    shortcode: processed.shortcode,
    type: processed.type,
    processing: 'complete' as const,
    contentType: processed.contentType,
    fileSize: processed.size,
    sha256: processed.sha256,
    meta: processed.meta,
    blurhash: processed.blurhash,
  };
}

/** Mastodon's focal point "x,y"; absent or blank → undefined. Errors: BadInput outside [-1, 1]. */
export function parseFocus(value: string | undefined): { x: number; y: number } | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const parts = value.split(',').map((part) => Number(part.trim()));
  const [x, y] = parts;
  const valid = (n: number | undefined): n is number =>
    n !== undefined && Number.isFinite(n) && n >= -1 && n <= 1;
  if (parts.length !== 2 || !valid(x) || !valid(y)) {
    throw new BadInput('Validation failed: Focus must be two numbers between -1.0 and 1.0, as "x,y"');
  }
  return { x, y };
}
