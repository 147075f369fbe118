import type { Migration } from '@agora/db';

/**
 * The moderation log (issue 13 §1 and §4): who did what to which object, with the object as it was.
 * The moderation issue adds the `actionLogs` query over it; deletions by moderators write it today.
 */
export const createActionLogs: Migration = {
  name: '20261127080000-create-action-logs',
  async up({ sequelize }) {
    // The acting profile may be deleted later; the entry stays, without it.
    await sequelize.query(`
      CREATE TABLE action_logs (
        id bigserial PRIMARY KEY,
        actor_id bigint REFERENCES actors (id) ON DELETE SET NULL,
        action text NOT NULL CONSTRAINT action_logs_action_check CHECK (action IN ('create', 'update', 'delete')),
        target_type text NOT NULL,
        target_id bigint NOT NULL,
        changes jsonb NOT NULL DEFAULT '{}',
        inserted_at timestamptz NOT NULL DEFAULT now()
      )`);
    // The log is read newest first (the primary key); a profile's actions and an object's history by these.
    await sequelize.query('CREATE INDEX action_logs_actor_id_idx ON action_logs (actor_id)');
    await sequelize.query('CREATE INDEX action_logs_target_idx ON action_logs (target_type, target_id)');
  },
  async down({ sequelize }) {
    await sequelize.query('DROP TABLE action_logs');
  },
};
