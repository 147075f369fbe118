import {
  DataTypes,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type Model,
  type ModelStatic,
  type Sequelize,
} from 'sequelize';

/** An opaque bearer token: non-expiring, revocable, stored as a hash plus an encrypted copy. */
export interface OAuthAccessTokenRow extends Model<
  InferAttributes<OAuthAccessTokenRow>,
  InferCreationAttributes<OAuthAccessTokenRow>
> {
  id: CreationOptional<string>;
  applicationId: string;
  /** Null for an app token (client_credentials). */
  userId: string | null;
  /** Space-separated, as granted. */
  scopes: string;
  tokenHash: string;
  tokenEncrypted: Buffer;
  createdAt: CreationOptional<Date>;
  revokedAt: CreationOptional<Date | null>;
  lastUsedAt: CreationOptional<Date | null>;
}

export type OAuthAccessTokenModel = ModelStatic<OAuthAccessTokenRow>;

export function defineOAuthAccessTokenModel(sequelize: Sequelize): OAuthAccessTokenModel {
  return sequelize.define<OAuthAccessTokenRow>(
    'OAuthAccessToken',
    {
      id: { type: DataTypes.BIGINT, primaryKey: true, autoIncrement: true },
      applicationId: { type: DataTypes.BIGINT, allowNull: false },
      userId: { type: DataTypes.BIGINT, allowNull: true },
      scopes: { type: DataTypes.TEXT, allowNull: false },
      tokenHash: { type: DataTypes.STRING(64), allowNull: false, unique: true },
      tokenEncrypted: { type: DataTypes.BLOB, allowNull: false },
      createdAt: { type: DataTypes.DATE, allowNull: false },
      revokedAt: { type: DataTypes.DATE, allowNull: true },
      lastUsedAt: { type: DataTypes.DATE, allowNull: true },
    },
    { tableName: 'oauth_access_tokens', underscored: true, timestamps: true, updatedAt: false },
  );
}
