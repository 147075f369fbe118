import { DataTypes, type Model, type ModelStatic, type Sequelize } from 'sequelize';

/** One stored instance setting (table `admin_settings`): a key and its JSON value. */
export interface AdminSettingAttributes {
  key: string;
  value: unknown;
  updatedAt?: Date;
}

export type AdminSettingModel = ModelStatic<Model<AdminSettingAttributes, AdminSettingAttributes>>;

/** Defined on the given Sequelize instance (not a module-level class), so each AppContext has its own. */
export function defineAdminSettingModel(sequelize: Sequelize): AdminSettingModel {
  return sequelize.define<Model<AdminSettingAttributes, AdminSettingAttributes>>(
    'AdminSetting',
    {
      key: { type: DataTypes.TEXT, primaryKey: true },
      value: { type: DataTypes.JSONB, allowNull: false },
      updatedAt: { type: DataTypes.DATE, field: 'updated_at' },
    },
    { tableName: 'admin_settings', timestamps: true, createdAt: false, updatedAt: 'updatedAt' },
  );
}
