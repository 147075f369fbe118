import type { Migration } from '@agora/db';

/**
 * Statuses and what hangs on them: conversations, favourites, bookmarks, pins, mentions, tags, edit
 * history, conversation mutes, the home feeds written on post, and Idempotency-Key answers.
 *
 * Ids are time-sortable (milliseconds since the epoch shifted left 16 bits, plus 16 bits of a
 * sequence), so `max_id`/`min_id` page by time and a status id says when it was made.
 * Counters (ADR 0005): `replies_count`, `reblogs_count`, `favourites_count` on statuses and
 * `statuses_count`/`last_status_at` on actors are kept by triggers, so a delete, an unreblog or an
 * account's cascade keeps them right. A status deleted through the API keeps its row with
 * `deleted_at` set (its URI stays a tombstone for federation) and stops counting.
 */
export const statuses: Migration = {
  name: '20261127100000-statuses',
  async up({ sequelize }) {
    const q = (sql: string) => sequelize.query(sql);
    await q('CREATE SEQUENCE statuses_id_seq');
    await q(`
      CREATE FUNCTION statuses_next_id() RETURNS bigint LANGUAGE sql VOLATILE AS $$
        SELECT ((floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint) << 16)
               | (nextval('statuses_id_seq') % 65536)
      $$`);

    await q(`
      CREATE TABLE conversations (
        id bigserial PRIMARY KEY,
        uri text,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q('CREATE UNIQUE INDEX conversations_uri_key ON conversations (uri) WHERE uri IS NOT NULL');

    await q(`
      CREATE TABLE statuses (
        id bigint PRIMARY KEY DEFAULT statuses_next_id(),
        uri text,
        url text,
        account_id bigint NOT NULL REFERENCES actors (id) ON DELETE CASCADE,
        local boolean NOT NULL,
        text text NOT NULL DEFAULT '',
        content text NOT NULL DEFAULT '',
        spoiler_text text NOT NULL DEFAULT '',
        sensitive boolean NOT NULL DEFAULT false,
        visibility text NOT NULL CHECK (visibility IN ('public', 'unlisted', 'private', 'direct')),
        language text,
        in_reply_to_id bigint REFERENCES statuses (id) ON DELETE SET NULL,
        in_reply_to_account_id bigint REFERENCES actors (id) ON DELETE SET NULL,
        reblog_of_id bigint REFERENCES statuses (id) ON DELETE CASCADE,
        conversation_id bigint REFERENCES conversations (id) ON DELETE SET NULL,
        application_id bigint REFERENCES oauth_applications (id) ON DELETE SET NULL,
        has_media boolean NOT NULL DEFAULT false,
        replies_count integer NOT NULL DEFAULT 0,
        reblogs_count integer NOT NULL DEFAULT 0,
        favourites_count integer NOT NULL DEFAULT 0,
        edited_at timestamptz,
        deleted_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q('CREATE UNIQUE INDEX statuses_uri_key ON statuses (uri) WHERE uri IS NOT NULL');
    // An account's statuses, newest first (profiles, the home back-fill).
    await q(
      'CREATE INDEX statuses_account_id_idx ON statuses (account_id, id DESC) WHERE deleted_at IS NULL',
    );
    // Context: the replies of a status.
    await q(
      'CREATE INDEX statuses_in_reply_to_idx ON statuses (in_reply_to_id) WHERE in_reply_to_id IS NOT NULL',
    );
    // One live reblog per account and status; reblogged_by; the reblogs removed with their status.
    await q(
      'CREATE UNIQUE INDEX statuses_reblog_key ON statuses (account_id, reblog_of_id) WHERE reblog_of_id IS NOT NULL AND deleted_at IS NULL',
    );
    await q(
      'CREATE INDEX statuses_reblog_of_idx ON statuses (reblog_of_id, id) WHERE reblog_of_id IS NOT NULL',
    );
    // The public timelines (federated, local, remote), newest first.
    await q(`CREATE INDEX statuses_public_idx ON statuses (id DESC)
               WHERE visibility = 'public' AND reblog_of_id IS NULL AND deleted_at IS NULL`);
    await q(`CREATE INDEX statuses_public_local_idx ON statuses (local, id DESC)
               WHERE visibility = 'public' AND reblog_of_id IS NULL AND deleted_at IS NULL`);

    await q(`ALTER TABLE media_attachments
               ADD CONSTRAINT media_attachments_status_id_fkey
               FOREIGN KEY (status_id) REFERENCES statuses (id) ON DELETE CASCADE`);

    await q(`
      CREATE TABLE mentions (
        status_id bigint NOT NULL REFERENCES statuses (id) ON DELETE CASCADE,
        account_id bigint NOT NULL REFERENCES actors (id) ON DELETE CASCADE,
        PRIMARY KEY (status_id, account_id)
      )`);
    await q('CREATE INDEX mentions_account_id_idx ON mentions (account_id, status_id DESC)');

    await q(`
      CREATE TABLE tags (
        id bigserial PRIMARY KEY,
        name text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q('CREATE UNIQUE INDEX tags_name_key ON tags (lower(name))');
    await q(`
      CREATE TABLE statuses_tags (
        status_id bigint NOT NULL REFERENCES statuses (id) ON DELETE CASCADE,
        tag_id bigint NOT NULL REFERENCES tags (id) ON DELETE CASCADE,
        PRIMARY KEY (tag_id, status_id)
      )`);
    await q('CREATE INDEX statuses_tags_status_id_idx ON statuses_tags (status_id)');

    for (const table of ['favourites', 'bookmarks', 'status_pins']) {
      await q(`
        CREATE TABLE ${table} (
          id bigserial PRIMARY KEY,
          account_id bigint NOT NULL REFERENCES actors (id) ON DELETE CASCADE,
          status_id bigint NOT NULL REFERENCES statuses (id) ON DELETE CASCADE,
          created_at timestamptz NOT NULL DEFAULT now()
        )`);
      // One per account and status (concurrent favourites count once); the account's list by newest.
      await q(`CREATE UNIQUE INDEX ${table}_account_status_key ON ${table} (account_id, status_id)`);
      await q(`CREATE INDEX ${table}_account_id_idx ON ${table} (account_id, id DESC)`);
      await q(`CREATE INDEX ${table}_status_id_idx ON ${table} (status_id, id)`);
    }

    await q(`
      CREATE TABLE conversation_mutes (
        account_id bigint NOT NULL REFERENCES actors (id) ON DELETE CASCADE,
        conversation_id bigint NOT NULL REFERENCES conversations (id) ON DELETE CASCADE,
        PRIMARY KEY (account_id, conversation_id)
      )`);

    await q(`
      CREATE TABLE status_edits (
        id bigserial PRIMARY KEY,
        status_id bigint NOT NULL REFERENCES statuses (id) ON DELETE CASCADE,
        account_id bigint NOT NULL REFERENCES actors (id) ON DELETE CASCADE,
        text text NOT NULL,
        content text NOT NULL,
        spoiler_text text NOT NULL,
        sensitive boolean NOT NULL,
        language text,
        media_attachment_ids bigint[] NOT NULL DEFAULT '{}',
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q('CREATE INDEX status_edits_status_id_idx ON status_edits (status_id, id)');

    // Home feeds, written on post (fan-out on write): reading one is an index scan of its account.
    await q(`
      CREATE TABLE home_feed (
        account_id bigint NOT NULL REFERENCES actors (id) ON DELETE CASCADE,
        status_id bigint NOT NULL REFERENCES statuses (id) ON DELETE CASCADE,
        PRIMARY KEY (account_id, status_id)
      )`);
    await q('CREATE INDEX home_feed_status_id_idx ON home_feed (status_id)');

    // POST /api/v1/statuses with Idempotency-Key: the status a key made (answered again for 1 h).
    await q(`
      CREATE TABLE status_idempotency_keys (
        account_id bigint NOT NULL REFERENCES actors (id) ON DELETE CASCADE,
        key text NOT NULL,
        status_id bigint NOT NULL REFERENCES statuses (id) ON DELETE CASCADE,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (account_id, key)
      )`);
    await q('CREATE INDEX status_idempotency_keys_created_at_idx ON status_idempotency_keys (created_at)');

    // Counters (ADR 0005). A status counts while `deleted_at` is NULL. Replies count on their parent
    // when public or unlisted (as the reference's "distributable" replies), reblogs on the original.
    await q(`
      CREATE FUNCTION statuses_count_move(s statuses, delta integer) RETURNS void LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE actors
           SET statuses_count = greatest(statuses_count + delta, 0),
               last_status_at = CASE WHEN delta > 0 THEN greatest(last_status_at, s.created_at) ELSE last_status_at END
         WHERE id = s.account_id;
        IF s.reblog_of_id IS NOT NULL THEN
          UPDATE statuses SET reblogs_count = greatest(reblogs_count + delta, 0) WHERE id = s.reblog_of_id;
        ELSIF s.in_reply_to_id IS NOT NULL AND s.visibility IN ('public', 'unlisted') THEN
          UPDATE statuses SET replies_count = greatest(replies_count + delta, 0) WHERE id = s.in_reply_to_id;
        END IF;
      END $$`);
    await q(`
      CREATE FUNCTION statuses_count() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP <> 'INSERT' AND OLD.deleted_at IS NULL THEN
          PERFORM statuses_count_move(OLD, -1);
        END IF;
        IF TG_OP <> 'DELETE' AND NEW.deleted_at IS NULL THEN
          PERFORM statuses_count_move(NEW, 1);
        END IF;
        RETURN NULL;
      END $$`);
    await q(`
      CREATE TRIGGER statuses_count
        AFTER INSERT OR DELETE OR UPDATE OF deleted_at, account_id, reblog_of_id, in_reply_to_id, visibility
        ON statuses FOR EACH ROW EXECUTE FUNCTION statuses_count()`);
    await q(`
      CREATE FUNCTION favourites_count() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          UPDATE statuses SET favourites_count = favourites_count + 1 WHERE id = NEW.status_id;
        ELSE
          UPDATE statuses SET favourites_count = greatest(favourites_count - 1, 0) WHERE id = OLD.status_id;
        END IF;
        RETURN NULL;
      END $$`);
    await q(`
      CREATE TRIGGER favourites_count AFTER INSERT OR DELETE ON favourites
        FOR EACH ROW EXECUTE FUNCTION favourites_count()`);
  },
  async down({ sequelize }) {
    const q = (sql: string) => sequelize.query(sql);
    await q('ALTER TABLE media_attachments DROP CONSTRAINT media_attachments_status_id_fkey');
    await q('DROP FUNCTION favourites_count() CASCADE');
    await q('DROP FUNCTION statuses_count() CASCADE');
    await q('DROP FUNCTION statuses_count_move(statuses, integer)');
    for (const table of [
      'status_idempotency_keys',
      'home_feed',
      'status_edits',
      'conversation_mutes',
      'status_pins',
      'bookmarks',
      'favourites',
      'statuses_tags',
      'tags',
      'mentions',
      'statuses',
      'conversations',
    ]) {
      await q(`DROP TABLE ${table}`);
    }
    await q('DROP FUNCTION statuses_next_id()');
    await q('DROP SEQUENCE statuses_id_seq');
  },
};
