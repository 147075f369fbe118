import type { Migration } from '@agora/db';

/**
 * The default profile of a user and the media a profile shows move out of @agora/auth's `users` and
 * @agora/federation's `actors` into tables of this app, so it never writes another package's table
 * (issue 11 §8). The rows keep their values; a missing row reads as the NULL the column held.
 */
export const profileLinksOwnTables: Migration = {
  name: '20261127040000-profile-links-own-tables',
  async up({ sequelize }) {
    await sequelize.query(`
      CREATE TABLE user_default_actors (
        user_id bigint PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
        actor_id bigint NOT NULL REFERENCES actors (id) ON DELETE CASCADE
      )`);
    await sequelize.query('CREATE INDEX user_default_actors_actor_id_idx ON user_default_actors (actor_id)');
    await sequelize.query(`INSERT INTO user_default_actors (user_id, actor_id)
      SELECT id, default_actor_id FROM users WHERE default_actor_id IS NOT NULL`);
    await sequelize.query('ALTER TABLE users DROP COLUMN default_actor_id');

    // The Media a local profile shows; its URL stays in actors.avatar_url/header_url for federation.
    await sequelize.query(`
      CREATE TABLE actor_pictures (
        actor_id bigint PRIMARY KEY REFERENCES actors (id) ON DELETE CASCADE,
        avatar_media_id bigint REFERENCES media (id) ON DELETE SET NULL,
        banner_media_id bigint REFERENCES media (id) ON DELETE SET NULL
      )`);
    await sequelize.query(
      'CREATE INDEX actor_pictures_avatar_media_id_idx ON actor_pictures (avatar_media_id)',
    );
    await sequelize.query(
      'CREATE INDEX actor_pictures_banner_media_id_idx ON actor_pictures (banner_media_id)',
    );
    await sequelize.query(`INSERT INTO actor_pictures (actor_id, avatar_media_id, banner_media_id)
      SELECT id, avatar_media_id, banner_media_id FROM actors
       WHERE avatar_media_id IS NOT NULL OR banner_media_id IS NOT NULL`);
    await sequelize.query('ALTER TABLE actors DROP COLUMN avatar_media_id, DROP COLUMN banner_media_id');
  },
  async down({ sequelize }) {
    await sequelize.query(`ALTER TABLE actors
      ADD COLUMN avatar_media_id bigint REFERENCES media (id) ON DELETE SET NULL,
      ADD COLUMN banner_media_id bigint REFERENCES media (id) ON DELETE SET NULL`);
    await sequelize.query('CREATE INDEX actors_avatar_media_id_idx ON actors (avatar_media_id)');
    await sequelize.query('CREATE INDEX actors_banner_media_id_idx ON actors (banner_media_id)');
    await sequelize.query(`UPDATE actors a SET avatar_media_id = p.avatar_media_id, banner_media_id = p.banner_media_id
      FROM actor_pictures p WHERE p.actor_id = a.id`);
    await sequelize.query('DROP TABLE actor_pictures');

    await sequelize.query(
      'ALTER TABLE users ADD COLUMN default_actor_id bigint REFERENCES actors (id) ON DELETE SET NULL',
    );
    await sequelize.query('CREATE INDEX users_default_actor_id_idx ON users (default_actor_id)');
    await sequelize.query(`UPDATE users u SET default_actor_id = d.actor_id
      FROM user_default_actors d WHERE d.user_id = u.id`);
    await sequelize.query('DROP TABLE user_default_actors');
  },
};
