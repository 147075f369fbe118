import type { Migration } from '@agora/db';
import { orphanKeysTrigger } from '@agora/media';

/**
 * A deleted attachment (by its owner, or with its account) queues its file keys; the periodic orphan
 * job deletes the files.
 */
export const mediaOrphanKeys: Migration = {
  name: '20261124210000-media-orphan-keys',
  async up({ sequelize }) {
    const keys = 'ARRAY(SELECT value FROM jsonb_each_text(OLD.file_keys))';
    for (const statement of orphanKeysTrigger('media_attachments', keys)) await sequelize.query(statement);
  },
  async down({ sequelize }) {
    await sequelize.query('DROP TRIGGER media_attachments_queue_orphan_keys ON media_attachments');
    await sequelize.query('DROP FUNCTION media_attachments_queue_orphan_keys()');
  },
};
