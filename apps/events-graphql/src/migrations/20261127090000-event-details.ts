import type { Migration } from '@agora/db';

/**
 * The rest of an event (issue 13 §1): its place (`addresses`, searched by distance without PostGIS,
 * ADR 0017), its contacts, and when it became visible (`published_at`: null until a future `publishAt`
 * comes, or while it is a draft).
 */
export const eventDetails: Migration = {
  name: '20261127090000-event-details',
  async up({ sequelize }) {
    await sequelize.query(`
      CREATE TABLE addresses (
        id bigserial PRIMARY KEY,
        origin_id text,
        street text,
        locality text,
        postal_code text,
        region text,
        country text,
        description text,
        type text,
        url text,
        timezone text,
        latitude double precision,
        longitude double precision,
        inserted_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT addresses_point_whole CHECK ((latitude IS NULL) = (longitude IS NULL)),
        CONSTRAINT addresses_point_range CHECK (latitude BETWEEN -90 AND 90 AND longitude BETWEEN -180 AND 180)
      )`);
    // Distance searches prefilter on a bounding box through this index, then measure (ADR 0017).
    await sequelize.query(
      `CREATE INDEX addresses_point_idx ON addresses USING gist (point(longitude, latitude))
        WHERE latitude IS NOT NULL`,
    );
    await sequelize.query(
      'ALTER TABLE events ADD COLUMN physical_address_id bigint REFERENCES addresses (id) ON DELETE SET NULL',
    );
    await sequelize.query(
      'CREATE INDEX events_physical_address_idx ON events (physical_address_id) WHERE physical_address_id IS NOT NULL',
    );
    // A removed media clears the event's picture through the foreign key: that lookup needs an index.
    await sequelize.query(
      'CREATE INDEX events_picture_idx ON events (picture_id) WHERE picture_id IS NOT NULL',
    );
    // An event's address is its own: it goes with the event.
    await sequelize.query(`
      CREATE FUNCTION events_delete_address() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF OLD.physical_address_id IS NOT NULL THEN
          DELETE FROM addresses WHERE id = OLD.physical_address_id;
        END IF;
        RETURN NULL;
      END $$`);
    await sequelize.query(`
      CREATE TRIGGER events_delete_address AFTER DELETE ON events
        FOR EACH ROW EXECUTE FUNCTION events_delete_address()`);

    await sequelize.query('ALTER TABLE events ADD COLUMN published_at timestamptz');
    await sequelize.query(
      'UPDATE events SET published_at = COALESCE(publish_at, inserted_at) WHERE NOT draft',
    );
    // What is listed: published events, by start; related events: by category among those.
    await sequelize.query('DROP INDEX events_listed_begins_on_idx');
    await sequelize.query(
      'CREATE INDEX events_listed_begins_on_idx ON events (begins_on) WHERE published_at IS NOT NULL AND NOT draft',
    );
    await sequelize.query(
      `CREATE INDEX events_listed_category_idx ON events (category, begins_on)
        WHERE published_at IS NOT NULL AND NOT draft`,
    );

    await sequelize.query(`
      CREATE TABLE event_contacts (
        event_id bigint NOT NULL REFERENCES events (id) ON DELETE CASCADE,
        actor_id bigint NOT NULL REFERENCES actors (id) ON DELETE CASCADE,
        position int NOT NULL,
        PRIMARY KEY (event_id, actor_id)
      )`);
    await sequelize.query('CREATE INDEX event_contacts_actor_idx ON event_contacts (actor_id)');
  },
  async down({ sequelize }) {
    await sequelize.query('DROP TABLE event_contacts');
    await sequelize.query('DROP INDEX events_listed_category_idx');
    await sequelize.query('DROP INDEX events_listed_begins_on_idx');
    await sequelize.query('CREATE INDEX events_listed_begins_on_idx ON events (begins_on) WHERE NOT draft');
    await sequelize.query('ALTER TABLE events DROP COLUMN published_at');
    await sequelize.query('DROP TRIGGER events_delete_address ON events');
    await sequelize.query('DROP FUNCTION events_delete_address()');
    await sequelize.query('DROP INDEX events_picture_idx');
    await sequelize.query('ALTER TABLE events DROP COLUMN physical_address_id');
    await sequelize.query('DROP TABLE addresses');
  },
};
