import { QueryTypes, type Sequelize } from 'sequelize';
import { visibleTo } from '../../statuses/status.model.js';
import { pageRows, pageSql, type PageRequest } from '../../../http/link-pagination.js';

/** The filters of GET /api/v1/accounts/:id/statuses (methods_summary: accounts#statuses). */
export interface AccountStatusesFilter {
  onlyMedia: boolean;
  /** Replies to others are left out; the author's replies to itself (threads) stay, as the reference does. */
  excludeReplies: boolean;
  excludeReblogs: boolean;
  /** Only the statuses the account pinned. */
  pinned: boolean;
  /** Only statuses with this hashtag (case-insensitive). */
  tagged: string | undefined;
}

/**
 * The ids of a page of an account's statuses (profile timeline), newest first, for `viewerId` (null
 * when anonymous). Visibility is `visibleTo` (public and unlisted to anyone, private to accepted
 * followers, direct to the accounts mentioned, everything to the author); an account that blocks the
 * viewer shows nothing, and reblogs of accounts the viewer blocks or mutes (or that block the
 * viewer) are left out, as Mastodon's AccountStatusesFilter does. One index scan on
 * `statuses (account_id, id DESC)` (with its media and no-replies partial twins); hydration is the
 * statuses view's.
 */
export async function accountStatusIds(
  sequelize: Sequelize,
  accountId: string,
  viewerId: string | null,
  filter: AccountStatusesFilter,
  page: PageRequest,
): Promise<string[]> {
  const bind: unknown[] = [accountId, viewerId];
  const conditions: string[] = [];
  if (filter.onlyMedia) conditions.push('s.has_media');
  if (filter.excludeReblogs) conditions.push('s.reblog_of_id IS NULL');
  if (filter.excludeReplies)
    conditions.push('(s.in_reply_to_id IS NULL OR s.in_reply_to_account_id = s.account_id)');
  if (filter.pinned)
    conditions.push('EXISTS (SELECT 1 FROM status_pins p WHERE p.account_id = $1 AND p.status_id = s.id)');
  if (filter.tagged !== undefined) {
    bind.push(filter.tagged.replace(/^#/, '').toLowerCase());
    conditions.push(`EXISTS (SELECT 1 FROM statuses_tags st JOIN tags t ON t.id = st.tag_id
                      WHERE st.status_id = s.id AND lower(t.name) = $${bind.length})`);
  }
  const paged = pageSql('s.id', page, bind);
  const rows = await sequelize.query<{ cursor: string }>(
    `SELECT s.id::text AS cursor FROM statuses s
      WHERE s.account_id = $1 AND s.deleted_at IS NULL AND ${visibleTo('$2::bigint')}
        -- An account that blocks the viewer shows it nothing.
        AND NOT EXISTS (SELECT 1 FROM blocks b WHERE b.account_id = $1 AND b.target_account_id = $2::bigint)
        -- Reblogs: the original must be visible and not by an account the viewer blocks, mutes or is blocked by.
        AND (s.reblog_of_id IS NULL OR EXISTS (
              SELECT 1 FROM statuses r
               WHERE r.id = s.reblog_of_id AND r.deleted_at IS NULL
                 AND (r.visibility IN ('public', 'unlisted') OR r.account_id = $2::bigint)
                 AND NOT EXISTS (SELECT 1 FROM blocks b
                                  WHERE (b.account_id = $2::bigint AND b.target_account_id = r.account_id)
                                     OR (b.account_id = r.account_id AND b.target_account_id = $2::bigint))
                 AND NOT EXISTS (SELECT 1 FROM mutes m
                                  WHERE m.account_id = $2::bigint AND m.target_account_id = r.account_id
                                    AND (m.expires_at IS NULL OR m.expires_at > now()))))
        ${conditions.map((condition) => `AND ${condition}`).join('\n        ')}
        ${paged.where}${paged.tail}`,
    { bind, type: QueryTypes.SELECT },
  );
  return pageRows(rows, page).items.map((row) => row.cursor);
}
