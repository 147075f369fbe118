import type { Migration } from '@agora/db';

/**
 * What a local account keeps beside its actor row: posting defaults (Mastodon's `source`), the
 * plain-text sources of its note and profile fields (the actor stores their HTML) and profile flags
 * the actor model has no column for.
 */
export const accountSettings: Migration = {
  name: '20261122040000-account-settings',
  async up({ sequelize }) {
    await sequelize.query(`
      CREATE TABLE account_settings (
        actor_id bigint PRIMARY KEY REFERENCES actors (id) ON DELETE CASCADE,
        privacy text NOT NULL DEFAULT 'public' CHECK (privacy IN ('public', 'unlisted', 'private')),
        sensitive boolean NOT NULL DEFAULT false,
        language text,
        note_source text NOT NULL DEFAULT '',
        fields_source jsonb NOT NULL DEFAULT '[]',
        hide_collections boolean NOT NULL DEFAULT false,
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
  },
  async down({ sequelize }) {
    await sequelize.query('DROP TABLE account_settings');
  },
};
