import type { Migration } from '@agora/db';

/** The roles of `MemberRoleEnum`, as stored (spec not-shown.md §1, §2.2). */
const ROLES = ['NOT_APPROVED', 'INVITED', 'MEMBER', 'MODERATOR', 'ADMINISTRATOR', 'CREATOR', 'REJECTED'];
/** The roles that count as members (`membersCount`, the member? of §2.2). */
const MEMBER_ROLES = ['MEMBER', 'MODERATOR', 'ADMINISTRATOR', 'CREATOR'];
const list = (values: string[]) => values.map((value) => `'${value}'`).join(', ');

/**
 * Groups (issue 14 §1, §2): a group is an actor of the one actor model (type `Group`); what the events
 * service adds to it lives in `group_details`, keyed by the actor, and its members in `members`.
 * `members_count` is read with every group page, so a trigger keeps it (ADR 0005).
 */
export const createGroups: Migration = {
  name: '20261127125000-create-groups',
  async up({ sequelize }) {
    await sequelize.query(`
      CREATE TABLE group_details (
        actor_id bigint PRIMARY KEY REFERENCES actors (id) ON DELETE CASCADE,
        visibility text NOT NULL DEFAULT 'PUBLIC' CHECK (visibility IN ('PUBLIC', 'UNLISTED', 'PRIVATE')),
        openness text NOT NULL DEFAULT 'MODERATED' CHECK (openness IN ('INVITE_ONLY', 'MODERATED', 'OPEN')),
        physical_address_id bigint REFERENCES addresses (id) ON DELETE SET NULL,
        members_count integer NOT NULL DEFAULT 0,
        inserted_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await sequelize.query(
      `CREATE INDEX group_details_physical_address_idx ON group_details (physical_address_id)
        WHERE physical_address_id IS NOT NULL`,
    );
    // A group's address is its own: it goes with the group.
    await sequelize.query(`
      CREATE FUNCTION group_details_delete_address() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF OLD.physical_address_id IS NOT NULL THEN
          DELETE FROM addresses WHERE id = OLD.physical_address_id;
        END IF;
        RETURN NULL;
      END $$`);
    await sequelize.query(`
      CREATE TRIGGER group_details_delete_address AFTER DELETE ON group_details
        FOR EACH ROW EXECUTE FUNCTION group_details_delete_address()`);

    await sequelize.query(`
      CREATE TABLE members (
        id bigserial PRIMARY KEY,
        uuid uuid NOT NULL UNIQUE,
        url text NOT NULL UNIQUE,
        parent_id bigint NOT NULL REFERENCES actors (id) ON DELETE CASCADE,
        actor_id bigint NOT NULL REFERENCES actors (id) ON DELETE CASCADE,
        role text NOT NULL CHECK (role IN (${list(ROLES)})),
        invited_by_id bigint REFERENCES actors (id) ON DELETE SET NULL,
        inserted_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT members_parent_actor_key UNIQUE (parent_id, actor_id)
      )`);
    // A group's members by role (lists, the last-administrator check); a profile's memberships.
    await sequelize.query('CREATE INDEX members_parent_role_idx ON members (parent_id, role, id)');
    await sequelize.query('CREATE INDEX members_actor_idx ON members (actor_id, parent_id)');
    await sequelize.query(
      'CREATE INDEX members_invited_by_idx ON members (invited_by_id) WHERE invited_by_id IS NOT NULL',
    );

    await sequelize.query(`
      CREATE FUNCTION members_count_members() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.role IN (${list(MEMBER_ROLES)}) THEN
          UPDATE group_details SET members_count = greatest(members_count - 1, 0) WHERE actor_id = OLD.parent_id;
        END IF;
        IF TG_OP IN ('INSERT', 'UPDATE') AND NEW.role IN (${list(MEMBER_ROLES)}) THEN
          UPDATE group_details SET members_count = members_count + 1 WHERE actor_id = NEW.parent_id;
        END IF;
        RETURN NULL;
      END $$`);
    await sequelize.query(`
      CREATE TRIGGER members_count_members AFTER INSERT OR DELETE OR UPDATE OF role, parent_id ON members
        FOR EACH ROW EXECUTE FUNCTION members_count_members()`);

    // Group events: a group's page lists the events attributed to it by start.
    await sequelize.query('DROP INDEX events_attributed_to_idx');
    await sequelize.query(
      `CREATE INDEX events_attributed_to_begins_on_idx ON events (attributed_to_id, begins_on)
        WHERE attributed_to_id IS NOT NULL`,
    );
  },
  async down({ sequelize }) {
    await sequelize.query('DROP INDEX events_attributed_to_begins_on_idx');
    await sequelize.query('CREATE INDEX events_attributed_to_idx ON events (attributed_to_id)');
    await sequelize.query('DROP TABLE members');
    await sequelize.query('DROP FUNCTION members_count_members()');
    await sequelize.query('DROP TABLE group_details');
    await sequelize.query('DROP FUNCTION group_details_delete_address()');
  },
};
