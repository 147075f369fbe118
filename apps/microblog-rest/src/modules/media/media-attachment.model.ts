import type { MediaMeta } from '@agora/media';
import { DataTypes, type Model, type ModelStatic, type Sequelize } from 'sequelize';

export const MEDIA_TYPES = ['image', 'gifv', 'video', 'audio', 'unknown'] as const;
export type MediaAttachmentType = (typeof MEDIA_TYPES)[number];

/** Mastodon's processing states: an upload queued for the worker, being processed, done, or given up. */
export type ProcessingState = 'queued' | 'in_progress' | 'complete' | 'failed';

/** Storage keys of a row's files; `thumbnail*` come from a client-sent custom preview. */
export interface MediaFileKeys {
  original?: string;
  small?: string;
  thumbnail?: string;
  thumbnailSmall?: string;
}

/** One row of `media_attachments` (migrations/20261123000000-media-attachments.ts). */
export interface MediaAttachmentRow {
  id: string;
  accountId: string;
  statusId: string | null;
  shortcode: string | null;
  type: MediaAttachmentType;
  processing: ProcessingState;
  fileKeys: MediaFileKeys;
  contentType: string | null;
  fileSize: number | null;
  sha256: string | null;
  meta: MediaMeta;
  description: string | null;
  blurhash: string | null;
  /** A remote status's attachment: the peer's URL (no files of ours). */
  remoteUrl?: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export type MediaAttachmentInstance = Model<
  MediaAttachmentRow,
  Partial<MediaAttachmentRow> & Pick<MediaAttachmentRow, 'accountId' | 'type'>
>;
export type MediaAttachmentModel = ModelStatic<MediaAttachmentInstance>;

/** Defines `MediaAttachment` on this Sequelize instance (once). */
export function defineMediaAttachmentModel(sequelize: Sequelize): MediaAttachmentModel {
  if (sequelize.isDefined('MediaAttachment')) {
    return sequelize.model('MediaAttachment') as MediaAttachmentModel;
  }
  return sequelize.define<MediaAttachmentInstance>(
    'MediaAttachment',
    {
      id: { type: DataTypes.BIGINT, primaryKey: true, autoIncrement: true },
      accountId: { type: DataTypes.BIGINT, allowNull: false },
      statusId: { type: DataTypes.BIGINT, allowNull: true },
      shortcode: { type: DataTypes.TEXT, allowNull: true },
      type: { type: DataTypes.TEXT, allowNull: false },
      processing: { type: DataTypes.TEXT, allowNull: false, defaultValue: 'complete' },
      fileKeys: { type: DataTypes.JSONB, allowNull: false, defaultValue: {} },
      contentType: { type: DataTypes.TEXT, allowNull: true },
      fileSize: { type: DataTypes.BIGINT, allowNull: true },
      sha256: { type: DataTypes.TEXT, allowNull: true },
      meta: { type: DataTypes.JSONB, allowNull: false, defaultValue: {} },
      description: { type: DataTypes.TEXT, allowNull: true },
      blurhash: { type: DataTypes.TEXT, allowNull: true },
      remoteUrl: { type: DataTypes.TEXT, allowNull: true },
      createdAt: { type: DataTypes.DATE, allowNull: false },
      updatedAt: { type: DataTypes.DATE, allowNull: false },
    },
    { tableName: 'media_attachments', underscored: true, timestamps: true },
  );
}

/** A row as plain data, ids as strings (bigint columns come back as strings or numbers). */
export function toMediaAttachment(row: MediaAttachmentInstance): MediaAttachmentRow {
  const value = row.get();
  return {
    ...value,
    id: String(value.id),
    accountId: String(value.accountId),
    statusId: value.statusId === null ? null : String(value.statusId),
    fileSize: value.fileSize === null ? null : Number(value.fileSize),
  };
}
