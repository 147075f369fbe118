import { DataTypes } from 'sequelize';
import type { Migration } from '@agora/db';

/**
 * Sign-in sessions of the web pages (revocable "session activations", only the token's hash kept)
 * and each account's two-factor state (TOTP secret encrypted, recovery codes hashed).
 */
export const sessionsTwoFactor: Migration = {
  name: '20261122020000-sessions-two-factor',
  async up({ queryInterface, sequelize }) {
    await queryInterface.createTable('session_activations', {
      id: { type: DataTypes.BIGINT, primaryKey: true, autoIncrement: true },
      user_id: {
        type: DataTypes.BIGINT,
        allowNull: false,
        references: { model: 'users', key: 'id' },
        onDelete: 'CASCADE',
      },
      token_hash: { type: DataTypes.STRING(64), allowNull: false, unique: true },
      user_agent: { type: DataTypes.TEXT, allowNull: false, defaultValue: '' },
      ip: { type: DataTypes.INET, allowNull: true },
      created_at: { type: DataTypes.DATE, allowNull: false },
      last_seen_at: { type: DataTypes.DATE, allowNull: false },
    });
    // The cap drops a user's oldest sessions.
    await sequelize.query(
      'CREATE INDEX session_activations_user ON session_activations (user_id, created_at)',
    );

    await queryInterface.createTable('user_two_factor', {
      user_id: {
        type: DataTypes.BIGINT,
        primaryKey: true,
        references: { model: 'users', key: 'id' },
        onDelete: 'CASCADE',
      },
      totp_secret_encrypted: { type: DataTypes.BLOB, allowNull: false },
      last_used_step: { type: DataTypes.INTEGER, allowNull: true },
      recovery_code_hashes: { type: DataTypes.ARRAY(DataTypes.TEXT), allowNull: false },
      enabled_at: { type: DataTypes.DATE, allowNull: false },
    });
  },
  async down({ queryInterface }) {
    await queryInterface.dropTable('user_two_factor');
    await queryInterface.dropTable('session_activations');
  },
};
