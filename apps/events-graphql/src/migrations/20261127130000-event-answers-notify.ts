import { notifyChannelName } from '@agora/core';
import type { Migration } from '@agora/db';

/** Must match EVENT_ANSWERS_CHANNEL (modules/events/event-answer-cache.ts); migrations keep their text. */
const CHANNEL = notifyChannelName('events.answers-changed');

/** What an event page shows, table by table; actors only for the columns it shows (and deletions). */
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
 * Every committed write to what an anonymous event page shows is announced on one LISTEN/NOTIFY
 * channel, whoever made it (a resolver, a job, federation, the admin CLI or plain SQL): the cached
 * whole answers of `event(uuid)` are then dropped in every process (ADR 0028). Statement triggers,
 * so a bulk write costs one notification, and PostgreSQL folds repeats within a transaction.
 */
export const eventAnswersNotify: Migration = {
  name: '20261127130000-event-answers-notify',
  async up({ sequelize }) {
    await sequelize.query(`CREATE FUNCTION event_answers_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('${CHANNEL}', '{}');
        RETURN NULL;
      END
      $$`);
    for (const table of TABLES) {
      await sequelize.query(`CREATE TRIGGER ${table}_event_answers_changed
        AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON ${table}
        FOR EACH STATEMENT EXECUTE FUNCTION event_answers_changed()`);
    }
    await sequelize.query(`CREATE TRIGGER actors_event_answers_changed
      AFTER UPDATE OF ${ACTOR_COLUMNS.join(', ')} OR DELETE ON actors
      FOR EACH STATEMENT EXECUTE FUNCTION event_answers_changed()`);
  },
  async down({ sequelize }) {
    for (const table of [...TABLES, 'actors']) {
      await sequelize.query(`DROP TRIGGER ${table}_event_answers_changed ON ${table}`);
    }
    await sequelize.query('DROP FUNCTION event_answers_changed()');
  },
};
