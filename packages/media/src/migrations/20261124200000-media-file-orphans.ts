import type { Migration } from '@agora/db';

/**
 * Storage keys whose row went away (deleted, or cascaded from a profile or an account): the orphan
 * job deletes the files no row refers to any more. Apps fill it from triggers on their media tables
 * (`orphanKeysTrigger`), so no deletion path can forget the files.
 */
export const createMediaFileOrphans: Migration = {
  name: '20261124200000-media-file-orphans',
  async up({ sequelize }) {
    await sequelize.query(`
      CREATE TABLE media_file_orphans (
        key text PRIMARY KEY,
        queued_at timestamptz NOT NULL DEFAULT now()
      )`);
  },
  async down({ sequelize }) {
    await sequelize.query('DROP TABLE media_file_orphans');
  },
};
