import { Router } from 'express';
import { NotFound } from '@agora/core';
import { z } from 'zod';
import { serializeNotification, serializeV1NotificationPolicy } from '../../entities/notification.js';
import { methodNotAllowed } from '../../http/errors.js';
import { setLinkHeader } from '../../http/link-pagination.js';
import { pathParam, validated } from '../../http/request-schema.js';
import {
  listNotificationsQuery,
  NOTIFICATION_PAGE,
  v1PolicyParams,
} from '../../modules/notifications/notification-params.js';
import { RECORD_NOT_FOUND } from '../../modules/notifications/notification.service.js';
import {
  callerId,
  notificationsJson,
  policyRoute,
  unreadCountRoute,
  type NotificationRouteDeps,
} from '../../modules/notifications/notifications-http.js';
import { loadNotificationViews } from '../../modules/notifications/views/notification.view.js';

const byId = { params: z.object({ id: pathParam }) };

/**
 * /api/v1/notifications: the caller's notifications (types[], exclude_types[], account_id; Link-paged,
 * 40 by default and 80 at most, §2.5), one, dismiss, clear, unread_count and the v1 policy.
 */
export function notificationsV1Router(deps: NotificationRouteDeps): Router {
  const { notifications, guards } = deps;
  const router = Router();

  router
    .route('/api/v1/notifications')
    .get(
      guards.requireUser('read:notifications'),
      validated({ query: listNotificationsQuery }, async ({ query }, res, req) => {
        const viewerId = await callerId(deps, res);
        const page = NOTIFICATION_PAGE.parse(req.query);
        const found = await notifications.list(viewerId, query, page);
        setLinkHeader(req, res, deps.publicUrl, found, page.limit);
        res.json(await notificationsJson(deps, found.items, viewerId));
      }),
    )
    .all(methodNotAllowed(['GET']));

  router
    .route('/api/v1/notifications/clear')
    .post(
      guards.requireUser('write:notifications'),
      validated({}, async (_input, res) => {
        await notifications.clear(await callerId(deps, res));
        res.json({});
      }),
    )
    .all(methodNotAllowed(['POST']));

  unreadCountRoute(router, '/api/v1/notifications/unread_count', deps);
  policyRoute(router, '/api/v1/notifications/policy', deps, {
    method: 'put',
    params: v1PolicyParams,
    serialize: serializeV1NotificationPolicy,
  });

  // Notification requests (4.3) hold what a policy filters; the policy does not filter yet, so none.
  router
    .route('/api/v1/notifications/requests')
    .get(
      guards.requireUser('read:notifications'),
      validated({}, (_input, res) => {
        res.json([]);
      }),
    )
    .all(methodNotAllowed(['GET']));
  router
    .route('/api/v1/notifications/requests/merged')
    .get(
      guards.requireUser('read:notifications'),
      validated({}, (_input, res) => {
        res.json({ merged: true });
      }),
    )
    .all(methodNotAllowed(['GET']));

  router
    .route('/api/v1/notifications/:id')
    .get(
      guards.requireUser('read:notifications'),
      validated(byId, async ({ params }, res) => {
        const viewerId = await callerId(deps, res);
        const row = await notifications.find(viewerId, params.id);
        // A notification a filter hides is still the caller's to read by id, with its results.
        const { views } = await loadNotificationViews(deps.views, [row], viewerId, [], { keepHidden: true });
        if (!views[0]) throw new NotFound(RECORD_NOT_FOUND);
        res.json(serializeNotification(views[0], deps.json));
      }),
    )
    .all(methodNotAllowed(['GET']));

  router
    .route('/api/v1/notifications/:id/dismiss')
    .post(
      guards.requireUser('write:notifications'),
      validated(byId, async ({ params }, res) => {
        await notifications.dismiss(await callerId(deps, res), params.id);
        res.json({});
      }),
    )
    .all(methodNotAllowed(['POST']));

  return router;
}
