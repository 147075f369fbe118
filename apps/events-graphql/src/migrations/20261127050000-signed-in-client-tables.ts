import type { Migration } from '@agora/db';

/**
 * What the current web client reads once signed in (issue 13 §8): the user's location preference in
 * `user_settings`, feed tokens and activity notification settings, in tables of this app.
 */
export const signedInClientTables: Migration = {
  name: '20261127050000-signed-in-client-tables',
  async up({ sequelize }) {
    await sequelize.query(`ALTER TABLE user_settings
      ADD COLUMN location_name text,
      ADD COLUMN location_geohash text,
      ADD COLUMN location_range integer`);
    // The token is a random UUID (v4): knowing it grants the private feed, so it is never derived.
    await sequelize.query(`
      CREATE TABLE feed_tokens (
        token uuid PRIMARY KEY,
        user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        actor_id bigint REFERENCES actors (id) ON DELETE CASCADE,
        inserted_at timestamptz NOT NULL DEFAULT now()
      )`);
    await sequelize.query('CREATE INDEX feed_tokens_user_id_idx ON feed_tokens (user_id)');
    await sequelize.query('CREATE INDEX feed_tokens_actor_id_idx ON feed_tokens (actor_id)');
    await sequelize.query(`
      CREATE TABLE user_activity_settings (
        user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        key text NOT NULL,
        method text NOT NULL,
        enabled boolean NOT NULL,
        inserted_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (user_id, key, method)
      )`);
  },
  async down({ sequelize }) {
    await sequelize.query('DROP TABLE user_activity_settings');
    await sequelize.query('DROP TABLE feed_tokens');
    await sequelize.query(`ALTER TABLE user_settings
      DROP COLUMN location_name, DROP COLUMN location_geohash, DROP COLUMN location_range`);
  },
};
