import type { Migration } from '@agora/db';

/** Users' preferences; `users` belongs to @agora/auth, whose set runs first. */
export const createUserSettings: Migration = {
  name: '20261122110000-create-user-settings',
  async up({ sequelize }) {
    await sequelize.query(`
      CREATE TABLE user_settings (
        user_id bigint PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
        timezone text,
        notification_on_day boolean NOT NULL,
        notification_each_week boolean NOT NULL,
        notification_before_event boolean NOT NULL,
        notification_pending_participation text NOT NULL,
        notification_pending_membership text NOT NULL,
        group_notifications text NOT NULL,
        inserted_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
  },
  async down({ sequelize }) {
    await sequelize.query('DROP TABLE user_settings');
  },
};
