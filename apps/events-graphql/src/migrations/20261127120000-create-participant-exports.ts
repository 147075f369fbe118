import type { Migration } from '@agora/db';

/**
 * Files of exported participant lists (issue 13 §3): one row per file, kept an hour then deleted with
 * its file by a periodic job. No foreign key to `events`: a row outlives its event until that job
 * runs (the download refuses it at once), so the file is always deleted by the job that knows it.
 */
export const createParticipantExports: Migration = {
  name: '20261127120000-create-participant-exports',
  async up({ sequelize }) {
    await sequelize.query(`
      CREATE TABLE participant_exports (
        id bigserial PRIMARY KEY,
        event_id bigint NOT NULL,
        format text NOT NULL CONSTRAINT participant_exports_format_check CHECK (format IN ('csv', 'pdf', 'ods')),
        file_name text NOT NULL UNIQUE,
        file_key text NOT NULL,
        download_name text NOT NULL,
        file_size integer NOT NULL,
        inserted_at timestamptz NOT NULL DEFAULT now()
      )`);
    // The cleanup job deletes the oldest rows first.
    await sequelize.query(
      'CREATE INDEX participant_exports_inserted_at_idx ON participant_exports (inserted_at)',
    );
  },
  async down({ sequelize }) {
    await sequelize.query('DROP TABLE participant_exports');
  },
};
