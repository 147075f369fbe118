import type { Migration } from '@agora/db';

/**
 * Uploaded media of this service, owned by an actor (a profile), and the pictures of local profiles.
 * Several rows may share stored files (a user uploading the same bytes again), so files are keyed here.
 */
export const createMedia: Migration = {
  name: '20261123090000-create-media',
  async up({ sequelize }) {
    await sequelize.query(`
      CREATE TABLE media (
        id bigserial PRIMARY KEY,
        actor_id bigint NOT NULL REFERENCES actors (id) ON DELETE CASCADE,
        kind text NOT NULL CHECK (kind IN ('attachment', 'avatar', 'banner')),
        name text NOT NULL,
        alt text,
        content_type text NOT NULL,
        size integer NOT NULL,
        sha256 text NOT NULL,
        file_key text NOT NULL,
        small_key text,
        width integer,
        height integer,
        blurhash text,
        inserted_at timestamptz NOT NULL DEFAULT now()
      )`);
    await sequelize.query('CREATE INDEX media_actor_id_idx ON media (actor_id, id)');
    await sequelize.query('CREATE INDEX media_sha256_idx ON media (sha256)');
    await sequelize.query('CREATE INDEX media_file_key_idx ON media (file_key)');
    // The Media a local profile shows; its URL is mirrored in avatar_url/header_url for federation.
    await sequelize.query(`ALTER TABLE actors
      ADD COLUMN avatar_media_id bigint REFERENCES media (id) ON DELETE SET NULL,
      ADD COLUMN banner_media_id bigint REFERENCES media (id) ON DELETE SET NULL`);
    await sequelize.query('CREATE INDEX actors_avatar_media_id_idx ON actors (avatar_media_id)');
    await sequelize.query('CREATE INDEX actors_banner_media_id_idx ON actors (banner_media_id)');
  },
  async down({ sequelize }) {
    await sequelize.query('ALTER TABLE actors DROP COLUMN avatar_media_id, DROP COLUMN banner_media_id');
    await sequelize.query('DROP TABLE media');
  },
};
