import { Router } from 'express';
import { z } from 'zod';
import { serializeAccount } from '../../entities/account.js';
import { serializeNotificationPolicy } from '../../entities/notification.js';
import { methodNotAllowed } from '../../http/errors.js';
import { setLinkHeader } from '../../http/link-pagination.js';
import { pathParam, validated } from '../../http/request-schema.js';
import {
  groupedNotificationsQuery,
  NOTIFICATION_PAGE,
  policyParams,
} from '../../modules/notifications/notification-params.js';
import {
  callerId,
  groupedNotificationsJson,
  policyRoute,
  unreadCountRoute,
  type NotificationRouteDeps,
} from '../../modules/notifications/notifications-http.js';
import { loadAccounts } from '../../modules/statuses/views/accounts.view.js';

/**
 * /api/v2/notifications (Mastodon 4.3): grouped notifications with the accounts and statuses they
 * name, unread_count, dismissing a group, and the notification policy.
 */
export function notificationsV2Router(deps: NotificationRouteDeps): Router {
  const { notifications, guards } = deps;
  const router = Router();

  router
    .route('/api/v2/notifications')
    .get(
      guards.requireUser('read:notifications'),
      validated({ query: groupedNotificationsQuery }, async ({ query }, res, req) => {
        const viewerId = await callerId(deps, res);
        const page = NOTIFICATION_PAGE.parse(req.query);
        const groups = await notifications.grouped(viewerId, query.selection, query.groupedTypes, page);
        setLinkHeader(req, res, deps.publicUrl, groups, page.limit);
        res.json(await groupedNotificationsJson(deps, groups.items, viewerId));
      }),
    )
    .all(methodNotAllowed(['GET']));

  unreadCountRoute(router, '/api/v2/notifications/unread_count', deps);
  policyRoute(router, '/api/v2/notifications/policy', deps, {
    method: 'patch',
    params: policyParams,
    serialize: serializeNotificationPolicy,
  });

  router
    .route('/api/v2/notifications/:group_key')
    .get(
      guards.requireUser('read:notifications'),
      validated({ params: z.object({ group_key: pathParam }) }, async ({ params }, res) => {
        const viewerId = await callerId(deps, res);
        const group = await notifications.group(viewerId, params.group_key);
        res.json(await groupedNotificationsJson(deps, [group], viewerId));
      }),
    )
    .all(methodNotAllowed(['GET']));

  router
    .route('/api/v2/notifications/:group_key/accounts')
    .get(
      guards.requireUser('read:notifications'),
      validated({ params: z.object({ group_key: pathParam }) }, async ({ params }, res) => {
        const viewerId = await callerId(deps, res);
        const ids = await notifications.groupSenders(viewerId, params.group_key);
        const accounts = await loadAccounts(deps.views, ids);
        res.json(
          ids.flatMap((id) => {
            const account = accounts.get(id);
            return account ? [serializeAccount(account, deps.publicUrl)] : [];
          }),
        );
      }),
    )
    .all(methodNotAllowed(['GET']));

  router
    .route('/api/v2/notifications/:group_key/dismiss')
    .post(
      guards.requireUser('write:notifications'),
      validated({ params: z.object({ group_key: pathParam }) }, async ({ params }, res) => {
        await notifications.dismissGroup(await callerId(deps, res), params.group_key);
        res.json({});
      }),
    )
    .all(methodNotAllowed(['POST']));

  return router;
}
