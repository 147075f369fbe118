import type { Migration } from '@agora/db';

/**
 * Ties the federation package's actors to this service's accounts: a user owns any number of
 * profiles (persons), deleted with the account, and picks one as the default identity.
 */
export const actorOwners: Migration = {
  name: '20261122130000-actor-owners',
  async up({ sequelize }) {
    await sequelize.query(
      'ALTER TABLE actors ADD CONSTRAINT actors_user_id_fkey FOREIGN KEY (user_id) REFERENCES users (id) ON DELETE CASCADE',
    );
    await sequelize.query(
      'ALTER TABLE users ADD COLUMN default_actor_id bigint REFERENCES actors (id) ON DELETE SET NULL',
    );
    await sequelize.query('CREATE INDEX users_default_actor_id_idx ON users (default_actor_id)');
  },
  async down({ sequelize }) {
    await sequelize.query('ALTER TABLE users DROP COLUMN default_actor_id');
    await sequelize.query('ALTER TABLE actors DROP CONSTRAINT actors_user_id_fkey');
  },
};
