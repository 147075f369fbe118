import {
  DataTypes,
  type CreationOptional,
  type InferAttributes,
  type InferCreationAttributes,
  type Model,
  type ModelStatic,
  type Sequelize,
} from 'sequelize';

/** A server rule shown to people before they sign up and when they report. */
export interface InstanceRuleRow extends Model<
  InferAttributes<InstanceRuleRow>,
  InferCreationAttributes<InstanceRuleRow>
> {
  id: CreationOptional<string>;
  priority: CreationOptional<number>;
  text: string;
  hint: CreationOptional<string>;
  createdAt: CreationOptional<Date>;
  updatedAt: CreationOptional<Date>;
}

export type InstanceRuleModel = ModelStatic<InstanceRuleRow>;

export function defineInstanceRuleModel(sequelize: Sequelize): InstanceRuleModel {
  return sequelize.define<InstanceRuleRow>(
    'InstanceRule',
    {
      // BIGINT comes back from pg as a string, which is what the API wants anyway.
      id: { type: DataTypes.BIGINT, primaryKey: true, autoIncrement: true },
      priority: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
      text: { type: DataTypes.TEXT, allowNull: false },
      hint: { type: DataTypes.TEXT, allowNull: false, defaultValue: '' },
      createdAt: { type: DataTypes.DATE, allowNull: false },
      updatedAt: { type: DataTypes.DATE, allowNull: false },
    },
    { tableName: 'instance_rules', underscored: true, timestamps: true },
  );
}
