import { DataTypes, type Model, type ModelStatic, type Sequelize } from 'sequelize';

/** Posting defaults Mastodon reports in `source.privacy` (direct is not a default). */
export const POSTING_PRIVACIES = ['public', 'unlisted', 'private'] as const;
export type PostingPrivacy = (typeof POSTING_PRIVACIES)[number];

/** A profile field as its owner typed it (the actor keeps the HTML). */
export interface FieldSource {
  name: string;
  value: string;
}

/** One row of `account_settings` (migrations/20261122040000-account-settings.ts). */
export interface AccountSettingsRow {
  actorId: string;
  privacy: PostingPrivacy;
  sensitive: boolean;
  language: string | null;
  noteSource: string;
  fieldsSource: FieldSource[];
  hideCollections: boolean;
  /** Languages whose statuses public timelines hide from this account (the seed's user setting). */
  filteredLanguages: string[];
  updatedAt: Date;
}

export type AccountSettingsInstance = Model<
  AccountSettingsRow,
  Partial<AccountSettingsRow> & Pick<AccountSettingsRow, 'actorId'>
>;
export type AccountSettingsModel = ModelStatic<AccountSettingsInstance>;

/** Defines `AccountSettings` on this Sequelize instance (once). */
export function defineAccountSettingsModel(sequelize: Sequelize): AccountSettingsModel {
  if (sequelize.isDefined('AccountSettings')) {
    return sequelize.model('AccountSettings') as AccountSettingsModel;
  }
  return sequelize.define<AccountSettingsInstance>(
    'AccountSettings',
    {
      actorId: { type: DataTypes.BIGINT, primaryKey: true },
      privacy: { type: DataTypes.TEXT, allowNull: false, defaultValue: 'public' },
      sensitive: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
      language: { type: DataTypes.TEXT, allowNull: true },
      noteSource: { type: DataTypes.TEXT, allowNull: false, defaultValue: '' },
      fieldsSource: { type: DataTypes.JSONB, allowNull: false, defaultValue: [] },
      hideCollections: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
      filteredLanguages: { type: DataTypes.ARRAY(DataTypes.TEXT), allowNull: false, defaultValue: [] },
      updatedAt: { type: DataTypes.DATE, allowNull: false },
    },
    { tableName: 'account_settings', underscored: true, timestamps: true, createdAt: false },
  );
}

/** The settings a new account starts with. */
export function defaultAccountSettings(actorId: string): AccountSettingsRow {
  return {
    actorId,
    privacy: 'public',
    sensitive: false,
    language: null,
    noteSource: '',
    fieldsSource: [],
    hideCollections: false,
    filteredLanguages: [],
    updatedAt: new Date(0),
  };
}
