import type { Migration } from '@agora/db';

/**
 * Viewer stamps (ADR 0049): `home_viewer_stamps.stamp` moves whenever something of an account's
 * own changes what its home page shows besides the feed's rows and the statuses and accounts on it:
 * its favourites, bookmarks, pins, reblogs and conversation mutes (the flags of each status), its
 * blocks, mutes, domain blocks and follows (`show_reblogs`: the feed's filters), its filters and
 * their keywords and statuses. A process that keeps whole home pages reads it with the rest of the
 * page's token in one statement.
 *
 * The new value comes from a sequence, so a stamp never comes back to a value it had (an account's
 * row may go and come again). The triggers are deferred to the commit, like ADR 0028's, so the row
 * lock they take is held only while the transaction commits. No foreign key: an account's deletion
 * cascades to the tables watched here, whose triggers then write the stamp of an account being
 * deleted; the row of a deleted account is a few bytes that nothing reads.
 */
const BY_ACCOUNT: ReadonlyArray<readonly [table: string, column: string]> = [
  ['favourites', 'account_id'],
  ['bookmarks', 'account_id'],
  ['status_pins', 'account_id'],
  ['conversation_mutes', 'account_id'],
  ['blocks', 'account_id'],
  ['mutes', 'account_id'],
  ['account_domain_blocks', 'account_id'],
  ['follows', 'actor_id'],
  ['filters', 'account_id'],
];
const BY_FILTER = ['filter_keywords', 'filter_statuses'] as const;

export const homeViewerStamps: Migration = {
  name: '20261129130000-home-viewer-stamps',
  async up({ sequelize }) {
    const q = (sql: string) => sequelize.query(sql);
    await q('CREATE SEQUENCE home_viewer_stamp_seq');
    await q(`
      CREATE TABLE home_viewer_stamps (
        account_id bigint PRIMARY KEY,
        stamp bigint NOT NULL
      )`);
    // Moves the stamps of the accounts in `ids` (each once: a row may name the same account twice).
    await q(`
      CREATE FUNCTION home_viewer_touch_ids(ids bigint[]) RETURNS void LANGUAGE sql AS $$
        INSERT INTO home_viewer_stamps (account_id, stamp)
        SELECT d.id, nextval('home_viewer_stamp_seq')
          FROM (SELECT DISTINCT id FROM unnest(ids) AS id WHERE id IS NOT NULL) d
        ON CONFLICT (account_id) DO UPDATE SET stamp = EXCLUDED.stamp
      $$`);
    // The account is the row's column named by the trigger's argument, before and after the change.
    await q(`
      CREATE FUNCTION home_viewer_touch() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        ids bigint[] := ARRAY[]::bigint[];
      BEGIN
        IF TG_OP <> 'INSERT' THEN ids := ids || (to_jsonb(OLD) ->> TG_ARGV[0])::bigint; END IF;
        IF TG_OP <> 'DELETE' THEN ids := ids || (to_jsonb(NEW) ->> TG_ARGV[0])::bigint; END IF;
        PERFORM home_viewer_touch_ids(ids);
        RETURN NULL;
      END $$`);
    // A filter's keywords and statuses: the filter's account (a filter deleted with them moves it itself).
    await q(`
      CREATE FUNCTION home_viewer_touch_by_filter() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        filter_ids bigint[] := ARRAY[]::bigint[];
      BEGIN
        IF TG_OP <> 'INSERT' THEN filter_ids := filter_ids || OLD.filter_id; END IF;
        IF TG_OP <> 'DELETE' THEN filter_ids := filter_ids || NEW.filter_id; END IF;
        PERFORM home_viewer_touch_ids(ARRAY(SELECT account_id FROM filters WHERE id = ANY(filter_ids)));
        RETURN NULL;
      END $$`);
    for (const [table, column] of BY_ACCOUNT) {
      await q(`CREATE CONSTRAINT TRIGGER ${table}_home_viewer_touch
                 AFTER INSERT OR UPDATE OR DELETE ON ${table} DEFERRABLE INITIALLY DEFERRED
                 FOR EACH ROW EXECUTE FUNCTION home_viewer_touch('${column}')`);
    }
    for (const table of BY_FILTER) {
      await q(`CREATE CONSTRAINT TRIGGER ${table}_home_viewer_touch
                 AFTER INSERT OR UPDATE OR DELETE ON ${table} DEFERRABLE INITIALLY DEFERRED
                 FOR EACH ROW EXECUTE FUNCTION home_viewer_touch_by_filter()`);
    }
    // The viewer's reblogs (its `reblogged` flags): only reblog rows, so posting costs nothing more.
    await q(`CREATE CONSTRAINT TRIGGER statuses_reblog_insert_home_viewer_touch
               AFTER INSERT ON statuses DEFERRABLE INITIALLY DEFERRED
               FOR EACH ROW WHEN (NEW.reblog_of_id IS NOT NULL)
               EXECUTE FUNCTION home_viewer_touch('account_id')`);
    await q(`CREATE CONSTRAINT TRIGGER statuses_reblog_update_home_viewer_touch
               AFTER UPDATE OF account_id, reblog_of_id, deleted_at ON statuses DEFERRABLE INITIALLY DEFERRED
               FOR EACH ROW WHEN (OLD.reblog_of_id IS NOT NULL OR NEW.reblog_of_id IS NOT NULL)
               EXECUTE FUNCTION home_viewer_touch('account_id')`);
    await q(`CREATE CONSTRAINT TRIGGER statuses_reblog_delete_home_viewer_touch
               AFTER DELETE ON statuses DEFERRABLE INITIALLY DEFERRED
               FOR EACH ROW WHEN (OLD.reblog_of_id IS NOT NULL)
               EXECUTE FUNCTION home_viewer_touch('account_id')`);
  },
  async down({ sequelize }) {
    const q = (sql: string) => sequelize.query(sql);
    for (const kind of ['insert', 'update', 'delete']) {
      await q(`DROP TRIGGER statuses_reblog_${kind}_home_viewer_touch ON statuses`);
    }
    for (const table of [...BY_ACCOUNT.map(([table]) => table), ...BY_FILTER]) {
      await q(`DROP TRIGGER ${table}_home_viewer_touch ON ${table}`);
    }
    await q('DROP FUNCTION home_viewer_touch_by_filter()');
    await q('DROP FUNCTION home_viewer_touch()');
    await q('DROP FUNCTION home_viewer_touch_ids(bigint[])');
    await q('DROP TABLE home_viewer_stamps');
    await q('DROP SEQUENCE home_viewer_stamp_seq');
  },
};
