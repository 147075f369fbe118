import type { Response } from 'express';
import {
  serializeGroupedNotifications,
  serializeNotification,
  type GroupedNotificationsJson,
  type NotificationJson,
} from '../../entities/notification.js';
import type { StatusJsonContext } from '../../entities/status.js';
import type { AccountService } from '../accounts/account.service.js';
import { userIdOf, type BearerGuards } from '../oauth/bearer.js';
import type { FilterService } from './filter.service.js';
import type { NotificationGroupRow, NotificationService } from './notification.service.js';
import type { NotificationRow } from './notification.types.js';
import { loadNotificationViews, type NotificationViewDeps } from './views/notification.view.js';

/** What the notifications and filters routes share. */
export interface NotificationRouteDeps {
  notifications: NotificationService;
  filters: FilterService;
  accounts: AccountService;
  guards: BearerGuards;
  publicUrl: string;
  json: StatusJsonContext;
  views: NotificationViewDeps;
}

/** The signed-in caller's account id (a route guarded by `requireUser`). */
export async function callerId(deps: { accounts: AccountService }, res: Response): Promise<string> {
  return (await deps.accounts.activeAccount(userIdOf(res))).id;
}

/** Notifications' JSON in the order given (those hidden by a filter, or whose status went, left out). */
export async function notificationsJson(
  deps: NotificationRouteDeps,
  rows: readonly NotificationRow[],
  viewerId: string,
): Promise<NotificationJson[]> {
  const { views } = await loadNotificationViews(deps.views, rows, viewerId);
  return views.map((view) => serializeNotification(view, deps.json));
}

/** The grouped results of v2: groups, the accounts they sample and the statuses they are about. */
export async function groupedNotificationsJson(
  deps: NotificationRouteDeps,
  groups: NotificationGroupRow[],
  viewerId: string,
): Promise<GroupedNotificationsJson> {
  const { views, accounts } = await loadNotificationViews(
    deps.views,
    groups.map((group) => group.latest),
    viewerId,
    groups.flatMap((group) => group.sampleAccountIds),
  );
  const shown = new Set(views.map((view) => view.row.id));
  const kept = groups
    .filter((group) => shown.has(group.latest.id))
    .map((group) => ({
      ...group,
      sampleAccountIds: group.sampleAccountIds.filter((id) => accounts.has(id)),
    }));
  const sampled = new Set(kept.flatMap((group) => group.sampleAccountIds));
  return serializeGroupedNotifications(
    kept,
    views,
    [...accounts.values()].filter((account) => sampled.has(account.actor.id)),
    deps.json,
  );
}
