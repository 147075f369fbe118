import type { Migration } from '@agora/db';

/**
 * Group posts, discussions and the group activity stream (issue 14 §4, §5, §8).
 *
 * - `posts`: ids are UUIDs as the reference's (a bad id is "Post ID is not a valid ID"); the slug is
 *   the title and a short form of the id, unique.
 * - `discussions`: a discussion's messages are comments (`comments.discussion_id`); `last_comment_id`
 *   is what lists show under each discussion.
 * - `activities`: one row per recorded action in a group, newest first, filtered by type and author.
 */
export const createPostsDiscussionsActivities: Migration = {
  name: '20261127142000-create-posts-discussions-activities',
  async up({ sequelize }) {
    await sequelize.query(`
      CREATE TABLE posts (
        id uuid PRIMARY KEY,
        slug text NOT NULL UNIQUE,
        url text NOT NULL UNIQUE,
        title text NOT NULL,
        body text NOT NULL,
        draft boolean NOT NULL DEFAULT false,
        local boolean NOT NULL DEFAULT true,
        visibility text NOT NULL DEFAULT 'PUBLIC' CHECK (visibility IN ('PUBLIC', 'UNLISTED', 'PRIVATE')),
        language text NOT NULL DEFAULT 'und',
        publish_at timestamptz,
        author_id bigint REFERENCES actors (id) ON DELETE SET NULL,
        attributed_to_id bigint NOT NULL REFERENCES actors (id) ON DELETE CASCADE,
        picture_id bigint REFERENCES media (id) ON DELETE SET NULL,
        inserted_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    // Group.posts: a group's posts, newest first (members: all; others: public published ones).
    await sequelize.query(
      'CREATE INDEX posts_attributed_to_idx ON posts (attributed_to_id, publish_at DESC NULLS FIRST, inserted_at DESC)',
    );
    await sequelize.query(
      `CREATE INDEX posts_public_idx ON posts (attributed_to_id, publish_at DESC)
        WHERE visibility = 'PUBLIC' AND NOT draft`,
    );
    await sequelize.query('CREATE INDEX posts_author_idx ON posts (author_id)');
    await sequelize.query(
      'CREATE INDEX posts_picture_idx ON posts (picture_id) WHERE picture_id IS NOT NULL',
    );
    await sequelize.query(`
      CREATE TABLE posts_tags (
        post_id uuid NOT NULL REFERENCES posts (id) ON DELETE CASCADE,
        tag_id bigint NOT NULL REFERENCES tags (id) ON DELETE CASCADE,
        PRIMARY KEY (post_id, tag_id)
      )`);
    await sequelize.query('CREATE INDEX posts_tags_tag_id_idx ON posts_tags (tag_id)');

    await sequelize.query(`
      CREATE TABLE discussions (
        id bigserial PRIMARY KEY,
        slug text NOT NULL UNIQUE,
        url text NOT NULL UNIQUE,
        title text NOT NULL,
        actor_id bigint NOT NULL REFERENCES actors (id) ON DELETE CASCADE,
        creator_id bigint REFERENCES actors (id) ON DELETE SET NULL,
        last_comment_id bigint REFERENCES comments (id) ON DELETE SET NULL,
        local boolean NOT NULL DEFAULT true,
        inserted_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    // Group.discussions: most recently active first.
    await sequelize.query(
      'CREATE INDEX discussions_actor_idx ON discussions (actor_id, updated_at DESC, id DESC)',
    );
    await sequelize.query('CREATE INDEX discussions_creator_idx ON discussions (creator_id)');
    await sequelize.query(
      'CREATE INDEX discussions_last_comment_idx ON discussions (last_comment_id) WHERE last_comment_id IS NOT NULL',
    );
    await sequelize.query(
      'ALTER TABLE comments ADD COLUMN discussion_id bigint REFERENCES discussions (id) ON DELETE CASCADE',
    );
    // Discussion.comments: oldest first.
    await sequelize.query(
      `CREATE INDEX comments_discussion_idx ON comments (discussion_id, published_at, id)
        WHERE discussion_id IS NOT NULL`,
    );

    await sequelize.query(`
      CREATE TABLE activities (
        id bigserial PRIMARY KEY,
        type text NOT NULL CHECK (type IN ('EVENT', 'POST', 'DISCUSSION', 'RESOURCE', 'GROUP', 'MEMBER')),
        subject text NOT NULL,
        subject_params jsonb NOT NULL DEFAULT '{}',
        group_id bigint NOT NULL REFERENCES actors (id) ON DELETE CASCADE,
        author_id bigint REFERENCES actors (id) ON DELETE SET NULL,
        object_type text,
        object_id text,
        inserted_at timestamptz NOT NULL DEFAULT now()
      )`);
    // Group.activity: newest first, optionally of one type.
    await sequelize.query(
      'CREATE INDEX activities_group_idx ON activities (group_id, inserted_at DESC, id DESC)',
    );
    await sequelize.query(
      'CREATE INDEX activities_group_type_idx ON activities (group_id, type, inserted_at DESC, id DESC)',
    );
    await sequelize.query('CREATE INDEX activities_author_idx ON activities (author_id)');
  },
  async down({ sequelize }) {
    await sequelize.query('DROP TABLE activities');
    await sequelize.query('DROP INDEX comments_discussion_idx');
    await sequelize.query('ALTER TABLE comments DROP COLUMN discussion_id');
    await sequelize.query('DROP TABLE discussions');
    await sequelize.query('DROP TABLE posts_tags');
    await sequelize.query('DROP TABLE posts');
  },
};
