import type { Migration } from '@agora/db';

/**
 * Render stamps (ADR 0039): `statuses.updated_at` and `actors.updated_at` move whenever what a
 * status's or an account's JSON shows changes, whatever path wrote it, so a process that cached the
 * rendered entity can tell from one read of the stamp whether its copy is still true. Counters
 * (kept by triggers, read fresh on every page) do not move them.
 *
 * - statuses: any column but the three counters and `updated_at` itself; a change of one of its
 *   media rows or of its preview card (the card job runs after the post) touches the status too.
 * - actors: any column but the counters (`followers_count`, `following_count`,
 *   `follow_requests_count`, `statuses_count`, `last_status_at`) and `updated_at`.
 */
/** The counters of each stamped table: kept by triggers, read fresh, so they do not move its stamp. */
const COUNTERS: Record<string, readonly string[]> = {
  statuses: ['replies_count', 'reblogs_count', 'favourites_count'],
  actors: ['followers_count', 'following_count', 'follow_requests_count', 'statuses_count', 'last_status_at'],
};

/**
 * The function and trigger `<table>_render_stamp`: moves `updated_at` when any column but `counters`
 * (and `updated_at` itself) changes, or when the writer set `updated_at` (a touch).
 */
function renderStamp(table: string, counters: readonly string[]): [string, string] {
  const ignored = [...counters, 'updated_at'].map((column) => `before.${column} := NEW.${column};`);
  const fn = `
      CREATE FUNCTION ${table}_render_stamp() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE
        before ${table} := OLD;
      BEGIN
        ${ignored.join('\n        ')}
        IF before IS DISTINCT FROM NEW OR OLD.updated_at IS DISTINCT FROM NEW.updated_at THEN
          NEW.updated_at := clock_timestamp();
        END IF;
        RETURN NEW;
      END $$`;
  const trigger = `CREATE TRIGGER ${table}_render_stamp BEFORE UPDATE ON ${table}
               FOR EACH ROW EXECUTE FUNCTION ${table}_render_stamp()`;
  return [fn, trigger];
}

export const renderStamps: Migration = {
  name: '20261128100000-render-stamps',
  async up({ sequelize }) {
    const q = (sql: string) => sequelize.query(sql);
    for (const [table, counters] of Object.entries(COUNTERS)) {
      for (const sql of renderStamp(table, counters)) await q(sql);
    }

    // A status's media (description, processing done, attached or detached) and its card.
    await q(`
      CREATE FUNCTION statuses_touch_by_status_id() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP <> 'INSERT' AND OLD.status_id IS NOT NULL THEN
          UPDATE statuses SET updated_at = clock_timestamp() WHERE id = OLD.status_id;
        END IF;
        IF TG_OP <> 'DELETE' AND NEW.status_id IS NOT NULL
           AND (TG_OP = 'INSERT' OR NEW.status_id IS DISTINCT FROM OLD.status_id) THEN
          UPDATE statuses SET updated_at = clock_timestamp() WHERE id = NEW.status_id;
        END IF;
        RETURN NULL;
      END $$`);
    await q(`CREATE TRIGGER media_attachments_render_stamp AFTER UPDATE ON media_attachments
               FOR EACH ROW WHEN (OLD.* IS DISTINCT FROM NEW.*) EXECUTE FUNCTION statuses_touch_by_status_id()`);
    await q(`CREATE TRIGGER status_preview_cards_render_stamp AFTER INSERT OR UPDATE OR DELETE ON status_preview_cards
               FOR EACH ROW EXECUTE FUNCTION statuses_touch_by_status_id()`);
    await q(`
      CREATE FUNCTION preview_cards_render_stamp() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE statuses SET updated_at = clock_timestamp()
         WHERE id IN (SELECT status_id FROM status_preview_cards WHERE preview_card_id = NEW.id);
        RETURN NULL;
      END $$`);
    await q(`CREATE TRIGGER preview_cards_render_stamp AFTER UPDATE ON preview_cards
               FOR EACH ROW WHEN (OLD.* IS DISTINCT FROM NEW.*) EXECUTE FUNCTION preview_cards_render_stamp()`);
  },
  async down({ sequelize }) {
    const q = (sql: string) => sequelize.query(sql);
    await q('DROP TRIGGER preview_cards_render_stamp ON preview_cards');
    await q('DROP FUNCTION preview_cards_render_stamp()');
    await q('DROP TRIGGER status_preview_cards_render_stamp ON status_preview_cards');
    await q('DROP TRIGGER media_attachments_render_stamp ON media_attachments');
    await q('DROP FUNCTION statuses_touch_by_status_id()');
    await q('DROP TRIGGER actors_render_stamp ON actors');
    await q('DROP FUNCTION actors_render_stamp()');
    await q('DROP TRIGGER statuses_render_stamp ON statuses');
    await q('DROP FUNCTION statuses_render_stamp()');
  },
};
