import type { Migration } from '@agora/db';

/**
 * The status search document becomes a stored generated column (issue 16 §2, ADR 0044).
 *
 * The expression index of ADR 0035 answers a rare word well, but newest-first over a common word is
 * best read backwards along the primary key with the match as a filter, and that filter recomputed
 * `to_tsvector` on every row it passed (tens of µs each). Stored, the filter is a lookup in the row.
 * The column is generated from the same IMMUTABLE function, so inserts and edits keep it in step with
 * no trigger; adding it rewrites `statuses` once. The GIN index moves onto it, with the same partial
 * predicate.
 */
export const statusesSearchDocument: Migration = {
  name: '20261128150000-statuses-search-document',
  async up({ sequelize }) {
    const q = (sql: string) => sequelize.query(sql);
    await q('DROP INDEX statuses_search_idx');
    await q(`ALTER TABLE statuses ADD COLUMN search_document tsvector
               GENERATED ALWAYS AS (status_search_document(spoiler_text, text, content)) STORED`);
    await q(`CREATE INDEX statuses_search_idx ON statuses USING gin (search_document)
               WHERE deleted_at IS NULL AND reblog_of_id IS NULL`);
  },
  async down({ sequelize }) {
    const q = (sql: string) => sequelize.query(sql);
    await q('DROP INDEX statuses_search_idx');
    await q('ALTER TABLE statuses DROP COLUMN search_document');
    await q(`CREATE INDEX statuses_search_idx ON statuses
               USING gin (status_search_document(spoiler_text, text, content))
               WHERE deleted_at IS NULL AND reblog_of_id IS NULL`);
  },
};
