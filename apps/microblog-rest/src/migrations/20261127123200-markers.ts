import type { Migration } from '@agora/db';

/** Reading positions (issue 15 §4): the last read status of the home timeline and notification. */
export const markers: Migration = {
  name: '20261127123200-markers',
  async up({ sequelize }) {
    await sequelize.query(`
      CREATE TABLE markers (
        account_id bigint NOT NULL REFERENCES actors (id) ON DELETE CASCADE,
        timeline text NOT NULL CHECK (timeline IN ('home', 'notifications')),
        last_read_id bigint NOT NULL,
        version integer NOT NULL DEFAULT 0,
        updated_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (account_id, timeline)
      )`);
  },
  async down({ sequelize }) {
    await sequelize.query('DROP TABLE markers');
  },
};
