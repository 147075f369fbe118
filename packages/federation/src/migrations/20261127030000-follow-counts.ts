import type { Migration } from '@agora/db';

/**
 * `actors.followers_count` and `following_count` kept by a trigger on `follows` (ADR 0005), as
 * `follow_requests_count`: an accepted follow counts once for each side, on every path — accept,
 * undo, reject, or a follower deleted with its cascade, which `FollowStore` code never saw. The
 * backfill recounts every actor, so counts a cascade left stale are right again.
 */
export const createFollowCounts: Migration = {
  name: '20261127030000-follow-counts',
  async up({ sequelize }) {
    await sequelize.query(`
      WITH counts AS (
        SELECT a.id,
               (SELECT count(*) FROM follows f WHERE f.target_actor_id = a.id AND f.accepted_at IS NOT NULL) AS followers,
               (SELECT count(*) FROM follows f WHERE f.actor_id = a.id AND f.accepted_at IS NOT NULL) AS following
          FROM actors a)
      UPDATE actors a SET followers_count = c.followers, following_count = c.following
        FROM counts c
       WHERE a.id = c.id AND (a.followers_count, a.following_count) IS DISTINCT FROM (c.followers, c.following)`);
    // Both rows in id order, so follows in opposite directions cannot deadlock (follows_check: no self-follows).
    await sequelize.query(`
      CREATE FUNCTION follows_count_accepted_move(follower bigint, target bigint, delta integer)
        RETURNS void LANGUAGE plpgsql AS $$
      BEGIN
        IF follower < target THEN
          UPDATE actors SET following_count = greatest(following_count + delta, 0) WHERE id = follower;
          UPDATE actors SET followers_count = greatest(followers_count + delta, 0) WHERE id = target;
        ELSE
          UPDATE actors SET followers_count = greatest(followers_count + delta, 0) WHERE id = target;
          UPDATE actors SET following_count = greatest(following_count + delta, 0) WHERE id = follower;
        END IF;
      END $$`);
    await sequelize.query(`
      CREATE FUNCTION follows_count_accepted() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP <> 'INSERT' AND OLD.accepted_at IS NOT NULL THEN
          PERFORM follows_count_accepted_move(OLD.actor_id, OLD.target_actor_id, -1);
        END IF;
        IF TG_OP <> 'DELETE' AND NEW.accepted_at IS NOT NULL THEN
          PERFORM follows_count_accepted_move(NEW.actor_id, NEW.target_actor_id, 1);
        END IF;
        RETURN NULL;
      END $$`);
    await sequelize.query(`
      CREATE TRIGGER follows_count_accepted
        AFTER INSERT OR DELETE OR UPDATE OF accepted_at, actor_id, target_actor_id ON follows
        FOR EACH ROW EXECUTE FUNCTION follows_count_accepted()`);
  },
  async down({ sequelize }) {
    await sequelize.query('DROP TRIGGER follows_count_accepted ON follows');
    await sequelize.query('DROP FUNCTION follows_count_accepted()');
    await sequelize.query('DROP FUNCTION follows_count_accepted_move(bigint, bigint, integer)');
  },
};
