import type { Migration } from '@agora/db';

/**
 * A follower's choices about a follow (Mastodon's `reblogs`, `notify`, `languages`), kept on the
 * relation itself so they survive until it ends, and the indexes the microblog's follower, following
 * and follow-request lists page through (newest relation first, by `id`), and name-prefix indexes
 * for account search.
 */
export const createFollowOptions: Migration = {
  name: '20261127110000-follow-options',
  async up({ sequelize }) {
    await sequelize.query(`
      ALTER TABLE follows
        ADD COLUMN show_reblogs boolean NOT NULL DEFAULT true,
        ADD COLUMN notify boolean NOT NULL DEFAULT false,
        ADD COLUMN languages text[]`);
    await sequelize.query(
      'CREATE INDEX follows_following_page_idx ON follows (actor_id, id) WHERE accepted_at IS NOT NULL',
    );
    await sequelize.query(
      'CREATE INDEX follows_followers_page_idx ON follows (target_actor_id, id) WHERE accepted_at IS NOT NULL',
    );
    await sequelize.query(
      'CREATE INDEX follows_requests_page_idx ON follows (target_actor_id, id) WHERE accepted_at IS NULL',
    );
    // Account search by the start of a name (the microblog's accounts/search and v2 search).
    await sequelize.query(
      'CREATE INDEX actors_username_prefix_idx ON actors (lower(username) text_pattern_ops)',
    );
    await sequelize.query(
      'CREATE INDEX actors_display_name_prefix_idx ON actors (lower(display_name) text_pattern_ops)',
    );
  },
  async down({ sequelize }) {
    await sequelize.query('DROP INDEX actors_display_name_prefix_idx');
    await sequelize.query('DROP INDEX actors_username_prefix_idx');
    await sequelize.query('DROP INDEX follows_requests_page_idx');
    await sequelize.query('DROP INDEX follows_followers_page_idx');
    await sequelize.query('DROP INDEX follows_following_page_idx');
    await sequelize.query(
      'ALTER TABLE follows DROP COLUMN languages, DROP COLUMN notify, DROP COLUMN show_reblogs',
    );
  },
};
