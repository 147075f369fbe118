import type { Migration } from '@agora/db';

/** The roles of `ParticipantRoleEnum`, as stored. */
const ROLES = [
  'NOT_APPROVED',
  'NOT_CONFIRMED',
  'PARTICIPANT',
  'MODERATOR',
  'ADMINISTRATOR',
  'CREATOR',
  'REJECTED',
];

/**
 * Participants of events (issue 13 §2) and their counts per role, one row per event kept by a trigger
 * (ADR 0005): `participantStats` is read with every event page, and the capacity check of a join
 * locks that row, so simultaneous joins are counted one after the other.
 */
export const createParticipants: Migration = {
  name: '20261127070000-create-participants',
  async up({ sequelize }) {
    await sequelize.query(`
      CREATE TABLE participants (
        id bigserial PRIMARY KEY,
        event_id bigint NOT NULL REFERENCES events (id) ON DELETE CASCADE,
        actor_id bigint NOT NULL REFERENCES actors (id) ON DELETE CASCADE,
        role text NOT NULL CHECK (role IN (${ROLES.map((role) => `'${role}'`).join(', ')})),
        url text UNIQUE,
        message text,
        locale text,
        timezone text,
        -- Anonymous participations (through the instance's anonymous actor) only:
        email text,
        confirmation_token text UNIQUE,
        cancellation_token text,
        inserted_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    // One participation per profile and event; the anonymous actor has one per e-mail address.
    await sequelize.query(
      'CREATE UNIQUE INDEX participants_event_actor_key ON participants (event_id, actor_id) WHERE email IS NULL',
    );
    await sequelize.query(
      `CREATE UNIQUE INDEX participants_event_actor_email_key ON participants (event_id, actor_id, lower(email))
       WHERE email IS NOT NULL`,
    );
    // An event's participants by role; a profile's (and a user's) participations.
    await sequelize.query('CREATE INDEX participants_event_role_idx ON participants (event_id, role, id)');
    await sequelize.query('CREATE INDEX participants_actor_idx ON participants (actor_id, event_id)');

    await sequelize.query(`
      CREATE TABLE event_participant_stats (
        event_id bigint PRIMARY KEY REFERENCES events (id) ON DELETE CASCADE,
        not_approved integer NOT NULL DEFAULT 0,
        not_confirmed integer NOT NULL DEFAULT 0,
        participant integer NOT NULL DEFAULT 0,
        moderator integer NOT NULL DEFAULT 0,
        administrator integer NOT NULL DEFAULT 0,
        creator integer NOT NULL DEFAULT 0,
        rejected integer NOT NULL DEFAULT 0
      )`);
    // Every event has its row from its creation on, whichever path inserts it.
    await sequelize.query(`
      CREATE FUNCTION events_create_participant_stats() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO event_participant_stats (event_id) VALUES (NEW.id) ON CONFLICT DO NOTHING;
        RETURN NULL;
      END $$`);
    await sequelize.query(`
      CREATE TRIGGER events_create_participant_stats AFTER INSERT ON events
      FOR EACH ROW EXECUTE FUNCTION events_create_participant_stats()`);
    await sequelize.query(`
      CREATE FUNCTION event_participant_stats_add(event bigint, role text, delta integer)
      RETURNS void LANGUAGE sql AS $$
        UPDATE event_participant_stats SET
          not_approved = greatest(not_approved + CASE WHEN role = 'NOT_APPROVED' THEN delta ELSE 0 END, 0),
          not_confirmed = greatest(not_confirmed + CASE WHEN role = 'NOT_CONFIRMED' THEN delta ELSE 0 END, 0),
          participant = greatest(participant + CASE WHEN role = 'PARTICIPANT' THEN delta ELSE 0 END, 0),
          moderator = greatest(moderator + CASE WHEN role = 'MODERATOR' THEN delta ELSE 0 END, 0),
          administrator = greatest(administrator + CASE WHEN role = 'ADMINISTRATOR' THEN delta ELSE 0 END, 0),
          creator = greatest(creator + CASE WHEN role = 'CREATOR' THEN delta ELSE 0 END, 0),
          rejected = greatest(rejected + CASE WHEN role = 'REJECTED' THEN delta ELSE 0 END, 0)
        WHERE event_id = event
      $$`);
    await sequelize.query(`
      CREATE FUNCTION participants_count_roles() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP IN ('UPDATE', 'DELETE') THEN
          PERFORM event_participant_stats_add(OLD.event_id, OLD.role, -1);
        END IF;
        IF TG_OP IN ('INSERT', 'UPDATE') THEN
          PERFORM event_participant_stats_add(NEW.event_id, NEW.role, 1);
        END IF;
        RETURN NULL;
      END $$`);
    await sequelize.query(`
      CREATE TRIGGER participants_count_roles AFTER INSERT OR DELETE OR UPDATE OF role, event_id ON participants
      FOR EACH ROW EXECUTE FUNCTION participants_count_roles()`);

    // Events created before participation: a stats row each, and their organizer as CREATOR.
    await sequelize.query('INSERT INTO event_participant_stats (event_id) SELECT id FROM events');
    await sequelize.query(
      `INSERT INTO participants (event_id, actor_id, role, inserted_at)
       SELECT id, organizer_actor_id, 'CREATOR', inserted_at FROM events`,
    );
  },
  async down({ sequelize }) {
    await sequelize.query('DROP TRIGGER events_create_participant_stats ON events');
    await sequelize.query('DROP FUNCTION events_create_participant_stats()');
    await sequelize.query('DROP TABLE participants');
    await sequelize.query('DROP FUNCTION participants_count_roles()');
    await sequelize.query('DROP FUNCTION event_participant_stats_add(bigint, text, integer)');
    await sequelize.query('DROP TABLE event_participant_stats');
  },
};
