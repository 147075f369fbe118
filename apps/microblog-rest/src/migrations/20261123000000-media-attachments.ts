import type { Migration } from '@agora/db';

/**
 * Uploaded media (Mastodon's MediaAttachment): owned by an account, unattached until a status takes
 * it (`status_id`, no foreign key until statuses exist). A row of an upload still processing has no
 * files yet (`processing` = queued or in_progress).
 */
export const mediaAttachments: Migration = {
  name: '20261123000000-media-attachments',
  async up({ sequelize }) {
    await sequelize.query(`
      CREATE TABLE media_attachments (
        id bigserial PRIMARY KEY,
        account_id bigint NOT NULL REFERENCES actors (id) ON DELETE CASCADE,
        status_id bigint,
        shortcode text UNIQUE,
        type text NOT NULL CHECK (type IN ('image', 'gifv', 'video', 'audio', 'unknown')),
        processing text NOT NULL DEFAULT 'complete'
          CHECK (processing IN ('queued', 'in_progress', 'complete', 'failed')),
        file_keys jsonb NOT NULL DEFAULT '{}',
        content_type text,
        file_size bigint,
        sha256 text,
        meta jsonb NOT NULL DEFAULT '{}',
        description text,
        blurhash text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await sequelize.query('CREATE INDEX media_attachments_account_id_idx ON media_attachments (account_id)');
    await sequelize.query(
      'CREATE INDEX media_attachments_status_id_idx ON media_attachments (status_id) WHERE status_id IS NOT NULL',
    );
  },
  async down({ sequelize }) {
    await sequelize.query('DROP TABLE media_attachments');
  },
};
