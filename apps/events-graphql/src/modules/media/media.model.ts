import { DataTypes, type Model, type ModelStatic, type Sequelize } from 'sequelize';

export type MediaKind = 'attachment' | 'avatar' | 'banner';

/** An uploaded file (table `media`), owned by an actor; rows may share stored files (same bytes). */
export interface MediaRow {
  id: string;
  actorId: string;
  kind: MediaKind;
  name: string;
  alt: string | null;
  contentType: string;
  size: number;
  sha256: string;
  fileKey: string;
  smallKey: string | null;
  width: number | null;
  height: number | null;
  blurhash: string | null;
  insertedAt: Date;
}

export type MediaCreation = Omit<MediaRow, 'id' | 'insertedAt'>;
export type MediaModel = ModelStatic<Model<MediaRow, MediaCreation>>;

export function defineMediaModel(sequelize: Sequelize): MediaModel {
  const text = (allowNull = false) => ({ type: DataTypes.TEXT, allowNull });
  const int = (allowNull = false) => ({ type: DataTypes.INTEGER, allowNull });
  return sequelize.define<Model<MediaRow, MediaCreation>>(
    'Media',
    {
      id: { type: DataTypes.BIGINT, primaryKey: true, autoIncrement: true },
      actorId: { type: DataTypes.BIGINT, allowNull: false, field: 'actor_id' },
      kind: text(),
      name: text(),
      alt: text(true),
      contentType: { ...text(), field: 'content_type' },
      size: int(),
      sha256: text(),
      fileKey: { ...text(), field: 'file_key' },
      smallKey: { ...text(true), field: 'small_key' },
      width: int(true),
      height: int(true),
      blurhash: text(true),
      insertedAt: { type: DataTypes.DATE, allowNull: false, field: 'inserted_at' },
    },
    { tableName: 'media', timestamps: true, createdAt: 'insertedAt', updatedAt: false },
  );
}
