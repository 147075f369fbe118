import type { Migration } from '@agora/db';

/** Instance settings saved by administrators; they override the environment's defaults. */
export const createAdminSettings: Migration = {
  name: '20261122000000-create-admin-settings',
  async up({ sequelize }) {
    await sequelize.query(`
      CREATE TABLE admin_settings (
        key text PRIMARY KEY,
        value jsonb NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
  },
  async down({ sequelize }) {
    await sequelize.query('DROP TABLE admin_settings');
  },
};
