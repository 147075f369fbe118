import type { Migration } from '@agora/db';
import { orphanKeysTrigger } from '@agora/media';

/**
 * A deleted media row (by `removeMedia`, or with its profile or account) queues its file keys; the
 * periodic orphan job deletes the files once no other row shares them.
 */
export const mediaOrphanKeys: Migration = {
  name: '20261124210000-media-orphan-keys',
  async up({ sequelize }) {
    for (const statement of orphanKeysTrigger('media', 'ARRAY[OLD.file_key, OLD.small_key]')) {
      await sequelize.query(statement);
    }
    // The orphan job asks which queued keys other rows still use.
    await sequelize.query(
      'CREATE INDEX media_small_key_idx ON media (small_key) WHERE small_key IS NOT NULL',
    );
  },
  async down({ sequelize }) {
    await sequelize.query('DROP INDEX media_small_key_idx');
    await sequelize.query('DROP TRIGGER media_queue_orphan_keys ON media');
    await sequelize.query('DROP FUNCTION media_queue_orphan_keys()');
  },
};
