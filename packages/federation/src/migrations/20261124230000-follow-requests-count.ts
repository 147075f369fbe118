import type { Migration } from '@agora/db';

/**
 * `actors.follow_requests_count`: pending follows of each actor (Mastodon's `follow_requests_count`,
 * read on every client start). A trigger keeps it, so every path — a request, its acceptance, a
 * rejection, an undo, a follower deleted with its cascade — moves it exactly once.
 */
export const createFollowRequestsCount: Migration = {
  name: '20261124230000-follow-requests-count',
  async up({ sequelize }) {
    await sequelize.query('ALTER TABLE actors ADD COLUMN follow_requests_count integer NOT NULL DEFAULT 0');
    await sequelize.query(`
      UPDATE actors a SET follow_requests_count = pending.count
        FROM (SELECT target_actor_id, count(*) AS count FROM follows WHERE accepted_at IS NULL
              GROUP BY target_actor_id) pending
       WHERE a.id = pending.target_actor_id`);
    await sequelize.query(`
      CREATE FUNCTION follows_count_requests() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP <> 'INSERT' AND OLD.accepted_at IS NULL THEN
          UPDATE actors SET follow_requests_count = greatest(follow_requests_count - 1, 0)
           WHERE id = OLD.target_actor_id;
        END IF;
        IF TG_OP <> 'DELETE' AND NEW.accepted_at IS NULL THEN
          UPDATE actors SET follow_requests_count = follow_requests_count + 1 WHERE id = NEW.target_actor_id;
        END IF;
        RETURN NULL;
      END $$`);
    await sequelize.query(`
      CREATE TRIGGER follows_count_requests
        AFTER INSERT OR DELETE OR UPDATE OF accepted_at, target_actor_id ON follows
        FOR EACH ROW EXECUTE FUNCTION follows_count_requests()`);
  },
  async down({ sequelize }) {
    await sequelize.query('DROP TRIGGER follows_count_requests ON follows');
    await sequelize.query('DROP FUNCTION follows_count_requests()');
    await sequelize.query('ALTER TABLE actors DROP COLUMN follow_requests_count');
  },
};
