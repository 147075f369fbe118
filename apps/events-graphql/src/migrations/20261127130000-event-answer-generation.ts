import type { Migration } from '@agora/db';

/** What the cached event page shows, table by table; actors only for the columns it shows. */
const TABLES = [
  'events',
  'events_tags',
  'tags',
  'addresses',
  'event_contacts',
  'event_participant_stats',
  'actor_pictures',
  'media',
];
const ACTOR_COLUMNS = ['type', 'username', 'domain', 'url', 'display_name', 'summary', 'suspended_at'];

/**
 * One counter, bumped once by every transaction that writes what the cached event page shows, at its
 * commit, whoever wrote (a resolver, a job, federation, the admin CLI, plain SQL): cached answers are
 * keyed by it (ADR 0028). Deferred constraint triggers run at commit, after the transaction took every
 * other lock, so waiting for the counter's row can never close a cycle; a transaction-local setting
 * makes the second and later rows of a transaction cost a function call only.
 */
export const eventAnswerGeneration: Migration = {
  name: '20261127130000-event-answer-generation',
  async up({ sequelize }) {
    await sequelize.query(`CREATE TABLE event_answer_generation (
        single boolean PRIMARY KEY DEFAULT true CONSTRAINT event_answer_generation_single CHECK (single),
        value bigint NOT NULL DEFAULT 0
      )`);
    await sequelize.query('INSERT INTO event_answer_generation DEFAULT VALUES');
    await sequelize.query(`CREATE FUNCTION event_answers_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF current_setting('agora.event_answers_bumped', true) IS DISTINCT FROM 'yes' THEN
          UPDATE event_answer_generation SET value = value + 1;
          PERFORM set_config('agora.event_answers_bumped', 'yes', true);
        END IF;
        RETURN NULL;
      END
      $$`);
    for (const table of TABLES) {
      await sequelize.query(`CREATE CONSTRAINT TRIGGER ${table}_event_answers_changed
        AFTER INSERT OR UPDATE OR DELETE ON ${table} DEFERRABLE INITIALLY DEFERRED
        FOR EACH ROW EXECUTE FUNCTION event_answers_changed()`);
    }
    await sequelize.query(`CREATE CONSTRAINT TRIGGER actors_event_answers_changed
      AFTER UPDATE OF ${ACTOR_COLUMNS.join(', ')} OR DELETE ON actors DEFERRABLE INITIALLY DEFERRED
      FOR EACH ROW EXECUTE FUNCTION event_answers_changed()`);
  },
  async down({ sequelize }) {
    for (const table of [...TABLES, 'actors']) {
      await sequelize.query(`DROP TRIGGER ${table}_event_answers_changed ON ${table}`);
    }
    await sequelize.query('DROP FUNCTION event_answers_changed()');
    await sequelize.query('DROP TABLE event_answer_generation');
  },
};
