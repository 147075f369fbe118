import type { Migration } from '@agora/db';

/**
 * Comments under events (issue 13 §4). A thread is a first comment (no `in_reply_to_comment_id`) and
 * every comment whose `origin_comment_id` is it. A deleted comment stays as a tombstone: `deleted_at`
 * set, text and author cleared, so the replies around it keep their places.
 */
export const createComments: Migration = {
  name: '20261127080100-create-comments',
  async up({ sequelize }) {
    await sequelize.query(`
      CREATE TABLE comments (
        id bigserial PRIMARY KEY,
        uuid uuid NOT NULL UNIQUE,
        url text NOT NULL UNIQUE,
        text text,
        actor_id bigint REFERENCES actors (id) ON DELETE SET NULL,
        attributed_to_id bigint REFERENCES actors (id) ON DELETE SET NULL,
        event_id bigint REFERENCES events (id) ON DELETE CASCADE,
        in_reply_to_comment_id bigint REFERENCES comments (id) ON DELETE CASCADE,
        origin_comment_id bigint REFERENCES comments (id) ON DELETE CASCADE,
        visibility text NOT NULL DEFAULT 'PUBLIC'
          CONSTRAINT comments_visibility_check
          CHECK (visibility IN ('PUBLIC', 'UNLISTED', 'PRIVATE', 'MODERATED', 'INVITE')),
        is_announcement boolean NOT NULL DEFAULT false,
        language text NOT NULL DEFAULT 'und',
        total_replies integer NOT NULL DEFAULT 0,
        local boolean NOT NULL DEFAULT true,
        deleted_at timestamptz,
        published_at timestamptz NOT NULL DEFAULT now(),
        inserted_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT comments_reply_has_origin
          CHECK ((in_reply_to_comment_id IS NULL) = (origin_comment_id IS NULL))
      )`);
    // Event.comments: an event's first comments, announcements first, then oldest first.
    await sequelize.query(`CREATE INDEX comments_event_threads_idx
      ON comments (event_id, is_announcement DESC, published_at, id) WHERE in_reply_to_comment_id IS NULL`);
    // Comment.replies (direct replies) and thread(id) (the whole thread), in order.
    await sequelize.query(
      'CREATE INDEX comments_in_reply_to_idx ON comments (in_reply_to_comment_id, published_at, id)',
    );
    await sequelize.query(
      'CREATE INDEX comments_origin_idx ON comments (origin_comment_id, published_at, id)',
    );
    await sequelize.query('CREATE INDEX comments_actor_id_idx ON comments (actor_id)');
    await sequelize.query('CREATE INDEX comments_attributed_to_id_idx ON comments (attributed_to_id)');

    // total_replies, kept by a trigger (ADR 0005): a thread's first comment counts every comment of its
    // thread, a reply counts the replies to it. Tombstones stay in threads, so they stay counted.
    await sequelize.query(`
      CREATE FUNCTION comments_count_replies() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP <> 'INSERT' AND OLD.in_reply_to_comment_id IS NOT NULL THEN
          UPDATE comments SET total_replies = GREATEST(total_replies - 1, 0)
           WHERE id IN (OLD.origin_comment_id, OLD.in_reply_to_comment_id);
        END IF;
        IF TG_OP <> 'DELETE' AND NEW.in_reply_to_comment_id IS NOT NULL THEN
          UPDATE comments SET total_replies = total_replies + 1
           WHERE id IN (NEW.origin_comment_id, NEW.in_reply_to_comment_id);
        END IF;
        RETURN NULL;
      END
      $$`);
    await sequelize.query(`CREATE TRIGGER comments_count_replies
      AFTER INSERT OR DELETE OR UPDATE OF in_reply_to_comment_id, origin_comment_id ON comments
      FOR EACH ROW EXECUTE FUNCTION comments_count_replies()`);
    // A deleted profile's comments become tombstones (its `actor_id` is set to NULL by the foreign key),
    // so a thread never shows text without an author.
    await sequelize.query(`
      CREATE FUNCTION comments_tombstone_orphans() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        NEW.text := NULL;
        NEW.deleted_at := COALESCE(NEW.deleted_at, now());
        NEW.updated_at := now();
        RETURN NEW;
      END
      $$`);
    await sequelize.query(`CREATE TRIGGER comments_tombstone_orphans
      BEFORE UPDATE OF actor_id ON comments
      FOR EACH ROW WHEN (OLD.actor_id IS NOT NULL AND NEW.actor_id IS NULL AND OLD.deleted_at IS NULL)
      EXECUTE FUNCTION comments_tombstone_orphans()`);
  },
  async down({ sequelize }) {
    await sequelize.query('DROP TABLE comments');
    await sequelize.query('DROP FUNCTION comments_tombstone_orphans()');
    await sequelize.query('DROP FUNCTION comments_count_replies()');
  },
};
