import type { ActorStore } from '@agora/federation';
import type { Sequelize } from 'sequelize';
import type { SerializableAccount } from '../../../entities/account.js';
import type { RemoteAccountImages } from '../../accounts/account.service.js';
import type { StatusService } from '../../statuses/status.service.js';
import { loadAccounts } from '../../statuses/views/accounts.view.js';
import type { StatusView } from '../../statuses/views/status.view.js';
import type { FilterMatch, FilterService } from '../filter.service.js';
import type { NotificationRow } from '../notification.types.js';

/** A notification with everything its entity shows (DTO of this view). */
export interface NotificationView {
  row: NotificationRow;
  account: SerializableAccount;
  status: StatusView | null;
  /** The viewer's filters its status matched. */
  filtered: FilterMatch[];
}

export interface NotificationViewDeps {
  sequelize: Sequelize;
  actors: ActorStore;
  remoteImages?: RemoteAccountImages | undefined;
  statuses: StatusService;
  filters: FilterService;
}

/**
 * Hydrates a page of notifications in a fixed number of queries: the senders (2, `loadAccounts`),
 * the statuses through the statuses module's batch (`StatusService.views`), the viewer's filters (3).
 * A notification whose status a `hide` filter of the notifications context matches is left out, as
 * is one whose sender or status is gone. `extraAccountIds` (v2 samples) load in the same batch.
 */
export async function loadNotificationViews(
  deps: NotificationViewDeps,
  rows: readonly NotificationRow[],
  viewerId: string,
  extraAccountIds: readonly string[] = [],
  options: { keepHidden?: boolean } = {},
): Promise<{ views: NotificationView[]; accounts: Map<string, SerializableAccount> }> {
  const statusIds = rows.flatMap((row) => (row.statusId === null ? [] : [row.statusId]));
  const [accounts, statuses, matcher] = await Promise.all([
    loadAccounts(deps, [...rows.map((row) => row.fromAccountId), ...extraAccountIds]),
    deps.statuses.views(statusIds, viewerId),
    deps.filters.matcher(viewerId, 'notifications'),
  ]);
  const views: NotificationView[] = [];
  for (const row of rows) {
    const account = accounts.get(row.fromAccountId);
    if (!account) continue;
    const status = row.statusId === null ? null : (statuses.get(row.statusId) ?? null);
    if (row.statusId !== null && status === null) continue;
    const { matches, hidden } = status === null ? { matches: [], hidden: false } : matcher.match(status);
    if (hidden && !options.keepHidden) continue;
    views.push({ row, account, status, filtered: matches });
  }
  return { views, accounts };
}
