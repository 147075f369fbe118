import {
  DataTypes,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type Model,
  type ModelStatic,
  type Sequelize,
} from 'sequelize';

/** One admin-edited instance setting; `value` is JSON and validated by the service on read. */
export interface InstanceSettingRow extends Model<
  InferAttributes<InstanceSettingRow>,
  InferCreationAttributes<InstanceSettingRow>
> {
  key: string;
  value: unknown;
  updatedAt: CreationOptional<Date>;
}

export type InstanceSettingModel = ModelStatic<InstanceSettingRow>;

/** Defined per Sequelize instance (no module-level model classes, so contexts never share state). */
export function defineInstanceSettingModel(sequelize: Sequelize): InstanceSettingModel {
  return sequelize.define<InstanceSettingRow>(
    'InstanceSetting',
    {
      key: { type: DataTypes.STRING(64), primaryKey: true },
      value: { type: DataTypes.JSONB, allowNull: false },
      updatedAt: { type: DataTypes.DATE, allowNull: false },
    },
    { tableName: 'instance_settings', underscored: true, timestamps: true, createdAt: false },
  );
}
