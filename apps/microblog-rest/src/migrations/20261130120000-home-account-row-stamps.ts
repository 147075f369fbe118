import type { Migration } from '@agora/db';

/**
 * Account rows that move with everything their JSON shows (ADR 0053). ADR 0039's account render
 * stamp is the actor's `updated_at` plus three things kept in other rows: the owner's `role`, its
 * `hide_collections` setting and, for a remote account, which local copies of its avatar and header
 * exist (`remote_media_files.keys`). These triggers touch the actor (`updated_at`, which
 * `actors_render_stamp` takes as a touch) when one of them changes, in the writing transaction, so
 * the actor's row version alone tells a kept home page's token whether the account is unchanged.
 *
 * `remote_media_files` finds its actors by URL: two hash indexes (a URL has no length limit; a
 * btree entry has one) on the remote accounts' image URLs.
 */
export const homeAccountRowStamps: Migration = {
  name: '20261130120000-home-account-row-stamps',
  async up({ sequelize }) {
    const q = (sql: string) => sequelize.query(sql);
    await q(
      `CREATE INDEX actors_remote_avatar_url_idx ON actors USING hash (avatar_url) WHERE domain IS NOT NULL`,
    );
    await q(
      `CREATE INDEX actors_remote_header_url_idx ON actors USING hash (header_url) WHERE domain IS NOT NULL`,
    );

    // A local account's owner: its role (a user's deletion deletes its actor).
    await q(`
      CREATE FUNCTION actors_touch_by_user() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE actors SET updated_at = clock_timestamp() WHERE user_id = NEW.id;
        RETURN NULL;
      END $$`);
    await q(`CREATE TRIGGER users_account_stamp AFTER UPDATE OF role ON users
               FOR EACH ROW WHEN (OLD.role IS DISTINCT FROM NEW.role) EXECUTE FUNCTION actors_touch_by_user()`);

    // A local account's settings row: hide_collections, and the row's coming and going.
    await q(`
      CREATE FUNCTION actors_touch_by_settings() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP <> 'INSERT' THEN
          UPDATE actors SET updated_at = clock_timestamp() WHERE id = OLD.actor_id;
        END IF;
        IF TG_OP <> 'DELETE' AND (TG_OP = 'INSERT' OR NEW.actor_id IS DISTINCT FROM OLD.actor_id) THEN
          UPDATE actors SET updated_at = clock_timestamp() WHERE id = NEW.actor_id;
        END IF;
        RETURN NULL;
      END $$`);
    await q(`CREATE TRIGGER account_settings_account_stamp AFTER INSERT OR DELETE ON account_settings
               FOR EACH ROW EXECUTE FUNCTION actors_touch_by_settings()`);
    await q(`CREATE TRIGGER account_settings_account_stamp_update AFTER UPDATE ON account_settings
               FOR EACH ROW WHEN (OLD.hide_collections IS DISTINCT FROM NEW.hide_collections
                                  OR OLD.actor_id IS DISTINCT FROM NEW.actor_id)
               EXECUTE FUNCTION actors_touch_by_settings()`);

    // A remote image's local copies (fetched, failed, purged): the remote accounts showing that URL.
    await q(`
      CREATE FUNCTION actors_touch_by_remote_media() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP <> 'INSERT' THEN
          UPDATE actors SET updated_at = clock_timestamp()
           WHERE domain IS NOT NULL AND (avatar_url = OLD.url OR header_url = OLD.url);
        END IF;
        IF TG_OP <> 'DELETE' AND (TG_OP = 'INSERT' OR NEW.url IS DISTINCT FROM OLD.url) THEN
          UPDATE actors SET updated_at = clock_timestamp()
           WHERE domain IS NOT NULL AND (avatar_url = NEW.url OR header_url = NEW.url);
        END IF;
        RETURN NULL;
      END $$`);
    await q(`CREATE TRIGGER remote_media_files_account_stamp AFTER INSERT OR DELETE ON remote_media_files
               FOR EACH ROW EXECUTE FUNCTION actors_touch_by_remote_media()`);
    await q(`CREATE TRIGGER remote_media_files_account_stamp_update AFTER UPDATE ON remote_media_files
               FOR EACH ROW WHEN (OLD.keys IS DISTINCT FROM NEW.keys OR OLD.url IS DISTINCT FROM NEW.url)
               EXECUTE FUNCTION actors_touch_by_remote_media()`);
  },
  async down({ sequelize }) {
    const q = (sql: string) => sequelize.query(sql);
    await q('DROP TRIGGER remote_media_files_account_stamp_update ON remote_media_files');
    await q('DROP TRIGGER remote_media_files_account_stamp ON remote_media_files');
    await q('DROP FUNCTION actors_touch_by_remote_media()');
    await q('DROP TRIGGER account_settings_account_stamp_update ON account_settings');
    await q('DROP TRIGGER account_settings_account_stamp ON account_settings');
    await q('DROP FUNCTION actors_touch_by_settings()');
    await q('DROP TRIGGER users_account_stamp ON users');
    await q('DROP FUNCTION actors_touch_by_user()');
    await q('DROP INDEX actors_remote_header_url_idx');
    await q('DROP INDEX actors_remote_avatar_url_idx');
  },
};
