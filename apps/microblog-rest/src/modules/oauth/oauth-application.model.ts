import {
  DataTypes,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type Model,
  type ModelStatic,
  type Sequelize,
} from 'sequelize';

/** A registered OAuth client (a Mastodon "application"). */
export interface OAuthApplicationRow extends Model<
  InferAttributes<OAuthApplicationRow>,
  InferCreationAttributes<OAuthApplicationRow>
> {
  id: CreationOptional<string>;
  name: string;
  website: string | null;
  redirectUris: string[];
  /** Space-separated, in registration order. */
  scopes: string;
  clientId: string;
  clientSecretHash: string;
  /** The web frontend's own app: its users are never asked to approve it. */
  superapp: CreationOptional<boolean>;
  createdAt: CreationOptional<Date>;
  updatedAt: CreationOptional<Date>;
}

export type OAuthApplicationModel = ModelStatic<OAuthApplicationRow>;

export function defineOAuthApplicationModel(sequelize: Sequelize): OAuthApplicationModel {
  return sequelize.define<OAuthApplicationRow>(
    'OAuthApplication',
    {
      // BIGINT comes back from pg as a string, which is what the API wants anyway.
      id: { type: DataTypes.BIGINT, primaryKey: true, autoIncrement: true },
      name: { type: DataTypes.STRING(60), allowNull: false },
      website: { type: DataTypes.TEXT, allowNull: true },
      redirectUris: { type: DataTypes.ARRAY(DataTypes.TEXT), allowNull: false },
      scopes: { type: DataTypes.TEXT, allowNull: false },
      clientId: { type: DataTypes.STRING(64), allowNull: false, unique: true },
      clientSecretHash: { type: DataTypes.STRING(64), allowNull: false },
      superapp: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
      createdAt: { type: DataTypes.DATE, allowNull: false },
      updatedAt: { type: DataTypes.DATE, allowNull: false },
    },
    { tableName: 'oauth_applications', underscored: true, timestamps: true },
  );
}
