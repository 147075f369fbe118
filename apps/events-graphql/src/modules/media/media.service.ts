import { BadInput, Forbidden, NotFound, type Logger } from '@agora/core';
import type { Actor, ActorStore } from '@agora/federation';
import {
  MediaTooLarge,
  purgeOrphanFiles,
  type MediaPipeline,
  type MediaStorage,
  type ProcessedMedia,
} from '@agora/media';
import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';
import { isRowId } from '@agora/db';
import type { MediaKind, MediaModel, MediaRow } from './media.model.js';

/** The reference's texts: plain-string refusals there (`unknown_error`), atoms for sizes. */
export const MEDIA_MESSAGES = {
  notAllowedType: "File doesn't have an allowed MIME type.",
  tooLarge: 'file_too_large',
  noProfile: 'You need a profile to upload media',
  notOwnedProfile: 'Profile is not owned by authenticated user',
} as const;

export type Picture = 'avatar' | 'banner';

/** An upload that is processed and stored, but not yet a row: `commit` it or `discard` it. */
export interface StagedMedia {
  readonly kind: MediaKind;
  readonly processed: ProcessedMedia;
}

export interface MediaDetails {
  name: string;
  alt: string | null;
}

/** What a profile picture becomes: a staged upload, an existing media, or nothing (kept as is). */
export type PictureChoice = { staged: StagedMedia; details: MediaDetails } | { existing: MediaRow };

export interface MediaServiceOptions {
  sequelize: Sequelize;
  model: MediaModel;
  pipeline: MediaPipeline;
  storage: MediaStorage;
  actors: ActorStore;
  logger: Logger;
}

/** The rules of uploaded media: who owns what, duplicates, sizes, and profile pictures. */
export class MediaService {
  constructor(private readonly options: MediaServiceOptions) {}

  /** The `media` table, for the module's views. */
  get model(): MediaModel {
    return this.options.model;
  }

  get storage(): MediaStorage {
    return this.options.storage;
  }

  url(row: Pick<MediaRow, 'fileKey'>): string {
    return this.options.storage.url(row.fileKey);
  }

  /** Processes and stores an uploaded file (a local path), images only; refusals leave nothing behind. */
  async stage(file: string, kind: MediaKind): Promise<StagedMedia> {
    let processed: ProcessedMedia;
    try {
      processed = await this.options.pipeline.process({ kind, input: file });
    } catch (error) {
      throw refusal(error);
    }
    // The events service shows pictures; anything else the pipeline could keep is refused here.
    if (processed.type !== 'image') {
      await this.discard({ kind, processed });
      throw refusal(new BadInput('not an image', { code: 'unsupported_media_type' }));
    }
    return { kind, processed };
  }

  /** Deletes the stored files of a staged upload that will not become a row. */
  async discard(staged: StagedMedia): Promise<void> {
    await this.options.pipeline.remove(staged.processed).catch((error: unknown) => {
      this.options.logger.warn({ err: error }, 'could not delete the files of a refused upload');
    });
  }

  /**
   * Uploads a file as one of the user's profiles (`actorId`, else the default profile): the whole
   * of uploadMedia. Nothing stays stored when any step fails.
   */
  async upload(userId: string, owner: Actor, file: string, details: MediaDetails): Promise<MediaRow> {
    const staged = await this.stage(file, 'attachment');
    return this.withStaged([staged], () =>
      this.options.sequelize.transaction((transaction) =>
        this.commit(staged, owner.id, userId, details, transaction),
      ),
    );
  }

  /** Runs `work`; when it fails the staged uploads' files are deleted before the error goes on. */
  async withStaged<T>(staged: readonly StagedMedia[], work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      await Promise.all(staged.map((one) => this.discard(one)));
      throw error;
    }
  }

  /**
   * Makes a staged upload a row owned by `actorId`. When the same user already has a file with these
   * bytes, the row shares it and the new copy is deleted once the transaction commits.
   */
  async commit(
    staged: StagedMedia,
    actorId: string,
    userId: string,
    details: MediaDetails,
    transaction: Transaction,
  ): Promise<MediaRow> {
    const { processed } = staged;
    // Locked, so a concurrent removal of that row cannot delete the files we are about to share.
    const [twin] = await this.options.sequelize.query<{ id: string }>(
      `SELECT m.id FROM media m JOIN actors a ON a.id = m.actor_id
        WHERE a.user_id = $1 AND m.sha256 = $2 ORDER BY m.id LIMIT 1 FOR UPDATE OF m`,
      { bind: [userId, processed.sha256], type: QueryTypes.SELECT, transaction },
    );
    const shared = twin ? await this.options.model.findByPk(twin.id, { transaction }) : null;
    const files = shared
      ? pick(shared.get(), ['contentType', 'size', 'fileKey', 'smallKey', 'width', 'height', 'blurhash'])
      : {
          contentType: processed.contentType,
          size: processed.size,
          fileKey: processed.files.original.key,
          smallKey: processed.files.small?.key ?? null,
          width: processed.files.original.width ?? null,
          height: processed.files.original.height ?? null,
          blurhash: processed.blurhash,
        };
    const row = await this.options.model.create(
      {
        actorId,
        kind: staged.kind,
        name: details.name,
        alt: details.alt,
        sha256: processed.sha256,
        ...files,
      },
      { transaction },
    );
    if (shared) transaction.afterCommit(() => this.discard(staged));
    return row.get();
  }

  /** A media by id, for anyone. */
  async get(id: string): Promise<MediaRow> {
    const row = isRowId(id) ? await this.options.model.findByPk(id) : null;
    if (!row) throw new NotFound();
    return row.get();
  }

  /** One of the user's media (for reuse as a picture): unknown → 404, someone else's → 403. */
  async owned(userId: string, id: string): Promise<MediaRow> {
    const media = await this.get(id);
    if (!(await this.userOwnsActor(userId, media.actorId))) throw new Forbidden();
    return media;
  }

  /** Removes one of the user's media; its files go once no other row shares them. */
  async remove(userId: string, id: string): Promise<MediaRow> {
    const media = await this.owned(userId, id);
    const unshared = await this.options.sequelize.transaction(async (transaction) => {
      // A profile showing it shows nothing instead (the id columns are cleared by their foreign keys);
      // its URLs are federation's columns, written through its store.
      const showing = await this.options.sequelize.query<{
        actorId: string;
        avatar: boolean;
        banner: boolean;
      }>(
        `SELECT actor_id AS "actorId", avatar_media_id IS NOT DISTINCT FROM $1 AS avatar,
                banner_media_id IS NOT DISTINCT FROM $1 AS banner
           FROM actor_pictures WHERE avatar_media_id = $1 OR banner_media_id = $1 FOR UPDATE`,
        { bind: [media.id], type: QueryTypes.SELECT, transaction },
      );
      for (const { actorId, avatar, banner } of showing) {
        const patch = { ...(avatar ? { avatarUrl: null } : {}), ...(banner ? { headerUrl: null } : {}) };
        await this.options.actors.update(String(actorId), patch, { transaction });
      }
      const deleted = await this.options.model.destroy({ where: { id: media.id }, transaction });
      if (deleted === 0) throw new NotFound();
      const others = await this.options.model.count({ where: { fileKey: media.fileKey }, transaction });
      return others === 0;
    });
    if (unshared) {
      const keys = [media.fileKey, ...(media.smallKey ? [media.smallKey] : [])];
      await this.options.pipeline.remove(keys).catch((error: unknown) => {
        this.options.logger.warn({ err: error, mediaId: media.id }, 'could not delete the files of a media');
      });
    }
    return media;
  }

  /**
   * Deletes the files of media rows that went away with their profile or account (queued by the
   * `media` table's trigger) once no other row shares them; returns how many files went.
   */
  purgeOrphanFiles(): Promise<number> {
    return purgeOrphanFiles({
      sequelize: this.options.sequelize,
      logger: this.options.logger,
      deleteFile: (key) => this.options.storage.delete(key),
      stillReferenced: async (keys) => {
        const rows = await this.options.sequelize.query<{ key: string }>(
          `SELECT file_key AS key FROM media WHERE file_key = ANY($1)
           UNION SELECT small_key FROM media WHERE small_key = ANY($1)`,
          { bind: [keys], type: QueryTypes.SELECT },
        );
        return new Set(rows.map((row) => row.key));
      },
    });
  }

  /** Whether the actor is one of the user's profiles. */
  async userOwnsActor(userId: string, actorId: string): Promise<boolean> {
    const actor = await this.options.actors.findById(actorId);
    return actor !== null && actor.userId === userId;
  }

  /**
   * Sets a local profile's pictures inside the caller's transaction: staged uploads become its media,
   * and the URLs are mirrored in the actor (its ActivityPub `icon`/`image`).
   */
  async setPictures(
    actor: Actor,
    pictures: Partial<Record<Picture, PictureChoice>>,
    transaction: Transaction,
  ): Promise<void> {
    for (const picture of ['avatar', 'banner'] as const) {
      const choice = pictures[picture];
      if (!choice) continue;
      const media =
        'existing' in choice
          ? choice.existing
          : await this.commit(choice.staged, actor.id, actor.userId!, choice.details, transaction);
      // The media id in this app's `actor_pictures`; the URL in the actor, through federation's store.
      const idColumn = picture === 'avatar' ? 'avatar_media_id' : 'banner_media_id';
      await this.options.sequelize.query(
        `INSERT INTO actor_pictures (actor_id, ${idColumn}) VALUES ($1, $2)
         ON CONFLICT (actor_id) DO UPDATE SET ${idColumn} = $2`,
        { bind: [actor.id, media.id], type: QueryTypes.INSERT, transaction },
      );
      const url = this.url(media);
      await this.options.actors.update(
        actor.id,
        picture === 'avatar' ? { avatarUrl: url } : { headerUrl: url },
        { transaction },
      );
    }
  }
}

/** The pipeline's refusals as the reference words them; anything else goes on unchanged. */
function refusal(error: unknown): unknown {
  if (error instanceof MediaTooLarge) {
    return new BadInput(MEDIA_MESSAGES.tooLarge, { code: 'file_too_large', cause: error });
  }
  if (error instanceof BadInput && error.code === 'unsupported_media_type') {
    return new BadInput(MEDIA_MESSAGES.notAllowedType, { code: 'unknown_error', cause: error });
  }
  return error;
}

function pick<T extends object, K extends keyof T>(value: T, keys: readonly K[]): Pick<T, K> {
  return Object.fromEntries(keys.map((key) => [key, value[key]])) as Pick<T, K>;
}
