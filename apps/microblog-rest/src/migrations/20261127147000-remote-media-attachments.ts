import type { Migration } from '@agora/db';

/**
 * Attachments of remote statuses (issue 16 §5): stored as rows of `media_attachments` with no files of
 * ours (`file_keys` empty) and the peer's URL in `remote_url`, shown as Mastodon shows media it has
 * not cached. Read by status only (`media_attachments_status_id_idx`), so no new index.
 */
export const remoteMediaAttachments: Migration = {
  name: '20261127147000-remote-media-attachments',
  async up({ sequelize }) {
    await sequelize.query('ALTER TABLE media_attachments ADD COLUMN remote_url text');
  },
  async down({ sequelize }) {
    await sequelize.query('ALTER TABLE media_attachments DROP COLUMN remote_url');
  },
};
