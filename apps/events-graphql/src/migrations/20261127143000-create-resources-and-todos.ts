import type { Migration } from '@agora/db';

/** The reference's resource kinds (`Resource.TypeEnum`); the API names them in lower case. */
const RESOURCE_TYPES = ['folder', 'link', 'picture', 'pad', 'calc', 'visio'];

/**
 * Resources and todo lists of groups (issue 14 §6, §7). Ids are UUIDs, as the reference's are. A
 * resource's `path` is its folders' titles and its own joined by "/", unique within its group: a
 * rename or a move rewrites every descendant's path in one statement, found by path prefix.
 */
export const createResourcesAndTodos: Migration = {
  name: '20261127143000-create-resources-and-todos',
  async up({ sequelize }) {
    await sequelize.query(`
      CREATE TABLE resources (
        id uuid PRIMARY KEY,
        url text NOT NULL UNIQUE,
        group_id bigint NOT NULL REFERENCES actors (id) ON DELETE CASCADE,
        creator_id bigint REFERENCES actors (id) ON DELETE SET NULL,
        parent_id uuid REFERENCES resources (id) ON DELETE CASCADE,
        type text NOT NULL CHECK (type IN (${RESOURCE_TYPES.map((type) => `'${type}'`).join(', ')})),
        title text NOT NULL,
        summary text,
        resource_url text,
        metadata jsonb,
        path text NOT NULL,
        local boolean NOT NULL DEFAULT true,
        published_at timestamptz NOT NULL DEFAULT now(),
        inserted_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT resources_folder_has_no_link CHECK (type = 'folder' OR resource_url IS NOT NULL)
      )`);
    // By path (resource(path, username), duplicates refused); text_pattern_ops serves the prefix
    // match of a folder's descendants.
    await sequelize.query(
      'CREATE UNIQUE INDEX resources_group_path_key ON resources (group_id, path text_pattern_ops)',
    );
    // A folder's children, and the group's top level, by type then title.
    await sequelize.query('CREATE INDEX resources_parent_idx ON resources (parent_id, type, title, id)');
    await sequelize.query(
      'CREATE INDEX resources_top_level_idx ON resources (group_id, type, title, id) WHERE parent_id IS NULL',
    );
    // Group.resources: the most recent first.
    await sequelize.query(
      'CREATE INDEX resources_group_recent_idx ON resources (group_id, published_at DESC, id)',
    );
    await sequelize.query(
      'CREATE INDEX resources_creator_idx ON resources (creator_id) WHERE creator_id IS NOT NULL',
    );

    await sequelize.query(`
      CREATE TABLE todo_lists (
        id uuid PRIMARY KEY,
        url text NOT NULL UNIQUE,
        group_id bigint NOT NULL REFERENCES actors (id) ON DELETE CASCADE,
        title text NOT NULL,
        local boolean NOT NULL DEFAULT true,
        published_at timestamptz NOT NULL DEFAULT now(),
        inserted_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await sequelize.query('CREATE INDEX todo_lists_group_idx ON todo_lists (group_id, inserted_at, id)');

    await sequelize.query(`
      CREATE TABLE todos (
        id uuid PRIMARY KEY,
        url text NOT NULL UNIQUE,
        todo_list_id uuid NOT NULL REFERENCES todo_lists (id) ON DELETE CASCADE,
        title text NOT NULL,
        status boolean NOT NULL DEFAULT false,
        due_date timestamptz,
        creator_id bigint REFERENCES actors (id) ON DELETE SET NULL,
        assigned_to_id bigint REFERENCES actors (id) ON DELETE SET NULL,
        local boolean NOT NULL DEFAULT true,
        published_at timestamptz NOT NULL DEFAULT now(),
        inserted_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    // A list's todos: open ones first, then by creation.
    await sequelize.query('CREATE INDEX todos_list_idx ON todos (todo_list_id, status, inserted_at, id)');
    await sequelize.query(
      'CREATE INDEX todos_creator_idx ON todos (creator_id) WHERE creator_id IS NOT NULL',
    );
    await sequelize.query(
      'CREATE INDEX todos_assigned_to_idx ON todos (assigned_to_id) WHERE assigned_to_id IS NOT NULL',
    );
  },
};
