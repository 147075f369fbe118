import type { Migration } from '@agora/db';

/**
 * Refresh tokens of the events service's JWT sessions, by their `jti`: a row lets a refresh token be
 * revoked (logout) and rotated (`replaced_by` links each one to its successor, for reuse detection).
 */
export const createRefreshTokens: Migration = {
  name: '20261122100200-refresh-tokens',
  async up({ sequelize }) {
    await sequelize.query(`
      CREATE TABLE refresh_tokens (
        jti uuid PRIMARY KEY,
        user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        issued_at timestamptz NOT NULL,
        expires_at timestamptz NOT NULL,
        revoked_at timestamptz,
        replaced_by uuid REFERENCES refresh_tokens (jti) ON DELETE SET NULL
      )`);
    await sequelize.query('CREATE INDEX refresh_tokens_user_id_idx ON refresh_tokens (user_id)');
    await sequelize.query('CREATE INDEX refresh_tokens_replaced_by_idx ON refresh_tokens (replaced_by)');
    await sequelize.query('CREATE INDEX refresh_tokens_expires_at_idx ON refresh_tokens (expires_at)');
  },
  async down({ sequelize }) {
    await sequelize.query('DROP TABLE refresh_tokens');
  },
};
