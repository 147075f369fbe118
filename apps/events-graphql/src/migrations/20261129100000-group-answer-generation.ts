import type { Migration } from '@agora/db';
import { answersChanged, createAnswerGeneration, dropAnswerGeneration } from './answer-generation.js';

/**
 * What the cached group page (`FetchGroupPublic`) shows or decides with, table by table: the group's
 * details, its members (the caller's role, the count), its events with their tags, addresses,
 * participant counts and pictures, its posts with their tags and pictures, the actors' pictures, and
 * who the caller is (their default profile; actors and users only for the columns that matter).
 */
const TABLES = [
  'group_details',
  'members',
  'events',
  'events_tags',
  'tags',
  'addresses',
  'event_participant_stats',
  'posts',
  'posts_tags',
  'actor_pictures',
  'media',
  'user_default_actors',
];
/** Shown (ActorFragment, the group's own fields) or deciding (a profile's owner, suspension). */
const ACTOR_COLUMNS = [
  'type',
  'username',
  'domain',
  'uri',
  'url',
  'display_name',
  'summary',
  'manually_approves_followers',
  'user_id',
  'suspended_at',
];

/**
 * A second counter like `event_answer_generation` (ADR 0028), for the group page (ADR 0046): bumped
 * once by every transaction that writes what that page shows, at its commit, whoever wrote. A new
 * actor matters only when it is a user's profile (it may become their default one); a user only by
 * their role (instance moderators see what members see) or their deletion.
 * The page's key also reads the first of a group's events from a given time on
 * (`events_attributed_to_begins_on_idx`) and its next scheduled post (`posts_attributed_to_idx`).
 */
export const groupAnswerGeneration: Migration = {
  name: '20261129100000-group-answer-generation',
  async up({ sequelize }) {
    await createAnswerGeneration(sequelize, 'group', TABLES, ACTOR_COLUMNS);
    await sequelize.query(`CREATE CONSTRAINT TRIGGER actors_profile_group_answers_changed
      AFTER INSERT ON actors DEFERRABLE INITIALLY DEFERRED
      FOR EACH ROW WHEN (NEW.user_id IS NOT NULL) EXECUTE FUNCTION ${answersChanged('group')}()`);
    await sequelize.query(`CREATE CONSTRAINT TRIGGER users_group_answers_changed
      AFTER UPDATE OF role OR DELETE ON users DEFERRABLE INITIALLY DEFERRED
      FOR EACH ROW EXECUTE FUNCTION ${answersChanged('group')}()`);
  },
  async down({ sequelize }) {
    await sequelize.query('DROP TRIGGER actors_profile_group_answers_changed ON actors');
    await sequelize.query('DROP TRIGGER users_group_answers_changed ON users');
    await dropAnswerGeneration(sequelize, 'group', TABLES);
  },
};
