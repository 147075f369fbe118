import { DataTypes } from 'sequelize';
import type { Migration } from '@agora/db';

/**
 * OAuth2 applications, access tokens and authorization codes. Secrets, tokens and codes are stored
 * as SHA-256 hashes; a token also keeps an AES-256-GCM copy so it can be handed out again on reuse.
 */
export const oauth: Migration = {
  name: '20261122010000-oauth',
  async up({ queryInterface, sequelize }) {
    await queryInterface.createTable('oauth_applications', {
      id: { type: DataTypes.BIGINT, primaryKey: true, autoIncrement: true },
      name: { type: DataTypes.STRING(60), allowNull: false },
      website: { type: DataTypes.TEXT, allowNull: true },
      redirect_uris: { type: DataTypes.ARRAY(DataTypes.TEXT), allowNull: false },
      scopes: { type: DataTypes.TEXT, allowNull: false },
      client_id: { type: DataTypes.STRING(64), allowNull: false, unique: true },
      client_secret_hash: { type: DataTypes.STRING(64), allowNull: false },
      superapp: { type: DataTypes.BOOLEAN, allowNull: false, defaultValue: false },
      created_at: { type: DataTypes.DATE, allowNull: false },
      updated_at: { type: DataTypes.DATE, allowNull: false },
    });

    await queryInterface.createTable('oauth_access_tokens', {
      id: { type: DataTypes.BIGINT, primaryKey: true, autoIncrement: true },
      application_id: {
        type: DataTypes.BIGINT,
        allowNull: false,
        references: { model: 'oauth_applications', key: 'id' },
        onDelete: 'CASCADE',
      },
      user_id: {
        type: DataTypes.BIGINT,
        allowNull: true,
        references: { model: 'users', key: 'id' },
        onDelete: 'CASCADE',
      },
      scopes: { type: DataTypes.TEXT, allowNull: false },
      token_hash: { type: DataTypes.STRING(64), allowNull: false, unique: true },
      token_encrypted: { type: DataTypes.BLOB, allowNull: false },
      created_at: { type: DataTypes.DATE, allowNull: false },
      revoked_at: { type: DataTypes.DATE, allowNull: true },
      last_used_at: { type: DataTypes.DATE, allowNull: true },
    });
    // Token reuse looks for a live token of one app and user.
    await sequelize.query(
      'CREATE INDEX oauth_access_tokens_reuse ON oauth_access_tokens (application_id, user_id) WHERE revoked_at IS NULL',
    );

    await queryInterface.createTable('oauth_authorization_codes', {
      id: { type: DataTypes.BIGINT, primaryKey: true, autoIncrement: true },
      code_hash: { type: DataTypes.STRING(64), allowNull: false, unique: true },
      application_id: {
        type: DataTypes.BIGINT,
        allowNull: false,
        references: { model: 'oauth_applications', key: 'id' },
        onDelete: 'CASCADE',
      },
      user_id: {
        type: DataTypes.BIGINT,
        allowNull: false,
        references: { model: 'users', key: 'id' },
        onDelete: 'CASCADE',
      },
      redirect_uri: { type: DataTypes.TEXT, allowNull: false },
      scopes: { type: DataTypes.TEXT, allowNull: false },
      code_challenge: { type: DataTypes.STRING(128), allowNull: true },
      code_challenge_method: { type: DataTypes.STRING(10), allowNull: true },
      expires_at: { type: DataTypes.DATE, allowNull: false },
      used_at: { type: DataTypes.DATE, allowNull: true },
      created_at: { type: DataTypes.DATE, allowNull: false },
    });
  },
  async down({ queryInterface }) {
    await queryInterface.dropTable('oauth_authorization_codes');
    await queryInterface.dropTable('oauth_access_tokens');
    await queryInterface.dropTable('oauth_applications');
  },
};
