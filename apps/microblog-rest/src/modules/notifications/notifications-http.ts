import type { Response, Router } from 'express';
import type { z } from 'zod';
import {
  serializeGroupedNotifications,
  serializeNotification,
  type GroupedNotificationsJson,
  type NotificationJson,
} from '../../entities/notification.js';
import type { StatusJsonContext } from '../../entities/status.js';
import { methodNotAllowed } from '../../http/errors.js';
import { validated } from '../../http/request-schema.js';
import type { AccountService } from '../accounts/account.service.js';
import { userIdOf, type BearerGuards } from '../oauth/bearer.js';
import type { FilterService } from './filter.service.js';
import { unreadCountQuery } from './notification-params.js';
import type { NotificationGroupRow, NotificationService } from './notification.service.js';
import type { NotificationPolicy, NotificationRow } from './notification.types.js';
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
  return deps.accounts.activeAccountId(userIdOf(res));
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

/** `GET <path>` (v1 and v2 alike): `{ count }` of the caller's unread notifications. */
export function unreadCountRoute(router: Router, path: string, deps: NotificationRouteDeps): void {
  router
    .route(path)
    .get(
      deps.guards.requireUser('read:notifications'),
      validated({ query: unreadCountQuery }, async ({ query }, res) => {
        const viewerId = await callerId(deps, res);
        res.json({ count: await deps.notifications.unreadCount(viewerId, query.selection, query.limit) });
      }),
    )
    .all(methodNotAllowed(['GET']));
}

/**
 * `GET` and `PUT` (v1) or `PATCH` (v2) of `<path>`: the caller's notification policy, read and
 * changed through its version's parameters and serializer.
 */
export function policyRoute<Params extends Partial<NotificationPolicy>>(
  router: Router,
  path: string,
  deps: NotificationRouteDeps,
  version: {
    method: 'put' | 'patch';
    params: z.ZodType<Params>;
    serialize: (policy: NotificationPolicy) => unknown;
  },
): void {
  const { method, params, serialize } = version;
  const route = router.route(path).get(
    deps.guards.requireUser('read:notifications'),
    validated({}, async (_input, res) => {
      res.json(serialize(await deps.notifications.policy(await callerId(deps, res))));
    }),
  );
  route[method](
    deps.guards.requireUser('write:notifications'),
    validated({ body: params }, async ({ body }, res) => {
      res.json(serialize(await deps.notifications.updatePolicy(await callerId(deps, res), body)));
    }),
  );
  route.all(methodNotAllowed(['GET', method.toUpperCase()]));
}
