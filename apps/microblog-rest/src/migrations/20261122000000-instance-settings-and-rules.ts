import { DataTypes } from 'sequelize';
import type { Migration } from '@agora/db';

/** Admin-editable instance settings (key → JSON value) laid over configuration, and the server rules. */
export const instanceSettingsAndRules: Migration = {
  name: '20261122000000-instance-settings-and-rules',
  async up({ queryInterface }) {
    await queryInterface.createTable('instance_settings', {
      key: { type: DataTypes.STRING(64), primaryKey: true },
      value: { type: DataTypes.JSONB, allowNull: false },
      updated_at: { type: DataTypes.DATE, allowNull: false },
    });
    await queryInterface.createTable('instance_rules', {
      id: { type: DataTypes.BIGINT, primaryKey: true, autoIncrement: true },
      priority: { type: DataTypes.INTEGER, allowNull: false, defaultValue: 0 },
      text: { type: DataTypes.TEXT, allowNull: false },
      hint: { type: DataTypes.TEXT, allowNull: false, defaultValue: '' },
      created_at: { type: DataTypes.DATE, allowNull: false },
      updated_at: { type: DataTypes.DATE, allowNull: false },
    });
  },
  async down({ queryInterface }) {
    await queryInterface.dropTable('instance_rules');
    await queryInterface.dropTable('instance_settings');
  },
};
