import type { Migration } from '@agora/db';

/** Ties the federation package's actors to this service's users: one account (actor) per user. */
export const accountOwners: Migration = {
  name: '20261122030000-account-owners',
  async up({ sequelize }) {
    await sequelize.query(
      'ALTER TABLE actors ADD CONSTRAINT actors_user_id_fkey FOREIGN KEY (user_id) REFERENCES users (id) ON DELETE CASCADE',
    );
    await sequelize.query(
      'CREATE UNIQUE INDEX actors_one_per_user_key ON actors (user_id) WHERE user_id IS NOT NULL',
    );
  },
  async down({ sequelize }) {
    await sequelize.query('DROP INDEX actors_one_per_user_key');
    await sequelize.query('ALTER TABLE actors DROP CONSTRAINT actors_user_id_fkey');
  },
};
