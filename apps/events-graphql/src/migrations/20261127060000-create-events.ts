import type { Migration } from '@agora/db';

/** Events, their tags and the join table (issue 13 §1): one row per event, organizer a profile. */
export const createEvents: Migration = {
  name: '20261127060000-create-events',
  async up({ sequelize }) {
    await sequelize.query(`
      CREATE TABLE events (
        id bigserial PRIMARY KEY,
        uuid uuid NOT NULL UNIQUE,
        url text NOT NULL UNIQUE,
        local boolean NOT NULL DEFAULT true,
        title text NOT NULL,
        description text NOT NULL DEFAULT '',
        begins_on timestamptz NOT NULL,
        ends_on timestamptz,
        status text NOT NULL DEFAULT 'CONFIRMED',
        visibility text NOT NULL DEFAULT 'PUBLIC',
        join_options text NOT NULL DEFAULT 'FREE',
        draft boolean NOT NULL DEFAULT false,
        organizer_actor_id bigint NOT NULL REFERENCES actors (id) ON DELETE CASCADE,
        attributed_to_id bigint REFERENCES actors (id) ON DELETE SET NULL,
        category text NOT NULL DEFAULT 'MEETING',
        language text NOT NULL DEFAULT 'und',
        options jsonb NOT NULL DEFAULT '{}',
        metadata jsonb NOT NULL DEFAULT '[]',
        external_participation_url text,
        online_address text,
        phone_address text,
        picture_id bigint REFERENCES media (id) ON DELETE SET NULL,
        publish_at timestamptz,
        inserted_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT events_ends_after_begins CHECK (ends_on IS NULL OR ends_on >= begins_on)
      )`);
    // The public listing reads published events by start; a profile's page reads its own.
    await sequelize.query('CREATE INDEX events_listed_begins_on_idx ON events (begins_on) WHERE NOT draft');
    await sequelize.query('CREATE INDEX events_organizer_idx ON events (organizer_actor_id, begins_on)');
    await sequelize.query('CREATE INDEX events_attributed_to_idx ON events (attributed_to_id)');
    await sequelize.query(`
      CREATE TABLE tags (
        id bigserial PRIMARY KEY,
        slug text NOT NULL UNIQUE,
        title text NOT NULL,
        inserted_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await sequelize.query(`
      CREATE TABLE events_tags (
        event_id bigint NOT NULL REFERENCES events (id) ON DELETE CASCADE,
        tag_id bigint NOT NULL REFERENCES tags (id) ON DELETE CASCADE,
        PRIMARY KEY (event_id, tag_id)
      )`);
    await sequelize.query('CREATE INDEX events_tags_tag_id_idx ON events_tags (tag_id)');
  },
  async down({ sequelize }) {
    await sequelize.query('DROP TABLE events_tags');
    await sequelize.query('DROP TABLE tags');
    await sequelize.query('DROP TABLE events');
  },
};
