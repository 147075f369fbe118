import {
  DataTypes,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type Model,
  type ModelStatic,
  type Sequelize,
} from 'sequelize';

/** A single-use authorization code (RFC 6749 §4.1), bound to its redirect URI and PKCE challenge. */
export interface OAuthAuthorizationCodeRow extends Model<
  InferAttributes<OAuthAuthorizationCodeRow>,
  InferCreationAttributes<OAuthAuthorizationCodeRow>
> {
  id: CreationOptional<string>;
  codeHash: string;
  applicationId: string;
  userId: string;
  redirectUri: string;
  scopes: string;
  codeChallenge: string | null;
  codeChallengeMethod: string | null;
  expiresAt: Date;
  usedAt: CreationOptional<Date | null>;
  createdAt: CreationOptional<Date>;
}

export type OAuthAuthorizationCodeModel = ModelStatic<OAuthAuthorizationCodeRow>;

export function defineOAuthAuthorizationCodeModel(sequelize: Sequelize): OAuthAuthorizationCodeModel {
  return sequelize.define<OAuthAuthorizationCodeRow>(
    'OAuthAuthorizationCode',
    {
      id: { type: DataTypes.BIGINT, primaryKey: true, autoIncrement: true },
      codeHash: { type: DataTypes.STRING(64), allowNull: false, unique: true },
      applicationId: { type: DataTypes.BIGINT, allowNull: false },
      userId: { type: DataTypes.BIGINT, allowNull: false },
      redirectUri: { type: DataTypes.TEXT, allowNull: false },
      scopes: { type: DataTypes.TEXT, allowNull: false },
      codeChallenge: { type: DataTypes.STRING(128), allowNull: true },
      codeChallengeMethod: { type: DataTypes.STRING(10), allowNull: true },
      expiresAt: { type: DataTypes.DATE, allowNull: false },
      usedAt: { type: DataTypes.DATE, allowNull: true },
      createdAt: { type: DataTypes.DATE, allowNull: false },
    },
    { tableName: 'oauth_authorization_codes', underscored: true, timestamps: true, updatedAt: false },
  );
}
