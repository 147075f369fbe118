import type { Migration } from '@agora/db';

/**
 * Inbox de-duplication and instance-level domain blocks. A receipt row per activity id makes a
 * redelivered (or replayed) activity a no-op; receipts older than the signature window can go.
 */
export const createInbox: Migration = {
  name: '20261122200200-inbox',
  async up({ sequelize }) {
    await sequelize.query(`
      CREATE TABLE inbox_receipts (
        activity_id text PRIMARY KEY,
        received_at timestamptz NOT NULL DEFAULT now()
      )`);
    await sequelize.query('CREATE INDEX inbox_receipts_received_at_idx ON inbox_receipts (received_at)');
    // Mastodon's severities: suspend refuses everything, silence limits visibility, noop only rejects media.
    await sequelize.query(`
      CREATE TABLE domain_blocks (
        domain text PRIMARY KEY CHECK (domain = lower(domain)),
        severity text NOT NULL CHECK (severity IN ('suspend', 'silence', 'noop')),
        reject_media boolean NOT NULL DEFAULT false,
        reject_reports boolean NOT NULL DEFAULT false,
        private_comment text,
        public_comment text,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
  },
  async down({ sequelize }) {
    await sequelize.query('DROP TABLE domain_blocks');
    await sequelize.query('DROP TABLE inbox_receipts');
  },
};
