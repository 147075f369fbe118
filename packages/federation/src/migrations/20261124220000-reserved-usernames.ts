import type { Migration } from '@agora/db';

/**
 * Names of deleted local actors (a deleted profile, an account deleted by its owner or an admin):
 * never given out again, as the references keep them, so nobody can take over a name others
 * followed or mentioned. Unconfirmed sign-ups purged by the housekeeping job are not reserved.
 */
export const createReservedUsernames: Migration = {
  name: '20261124220000-reserved-usernames',
  async up({ sequelize }) {
    await sequelize.query(`
      CREATE TABLE reserved_usernames (
        username text PRIMARY KEY CHECK (username = lower(username)),
        reserved_at timestamptz NOT NULL DEFAULT now()
      )`);
  },
  async down({ sequelize }) {
    await sequelize.query('DROP TABLE reserved_usernames');
  },
};
