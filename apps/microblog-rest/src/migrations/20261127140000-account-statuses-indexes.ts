import type { Migration } from '@agora/db';

/**
 * The profile timeline (`GET /api/v1/accounts/:id/statuses`, issue 15 §3): the plain read uses
 * `statuses_account_id_idx`; its two common filters get partial twins so a page stays one bounded
 * index scan: `only_media` (the media tab) and `exclude_replies` (the posts tab: originals, reblogs and
 * the author's self-replies).
 */
export const accountStatusesIndexes: Migration = {
  name: '20261127140000-account-statuses-indexes',
  async up({ sequelize }) {
    await sequelize.query(`CREATE INDEX statuses_account_media_idx ON statuses (account_id, id DESC)
                             WHERE deleted_at IS NULL AND has_media`);
    await sequelize.query(`CREATE INDEX statuses_account_no_replies_idx ON statuses (account_id, id DESC)
                             WHERE deleted_at IS NULL
                               AND (in_reply_to_id IS NULL OR in_reply_to_account_id = account_id)`);
  },
  async down({ sequelize }) {
    await sequelize.query('DROP INDEX statuses_account_no_replies_idx');
    await sequelize.query('DROP INDEX statuses_account_media_idx');
  },
};
