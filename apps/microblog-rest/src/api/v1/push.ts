import { Router } from 'express';
import { serializeWebPushSubscription } from '../../entities/web-push-subscription.js';
import { methodNotAllowed } from '../../http/errors.js';
import { validated } from '../../http/request-schema.js';
import type { AccountService } from '../../modules/accounts/account.service.js';
import { authOf, userIdOf, type BearerGuards } from '../../modules/oauth/bearer.js';
import { createPushParams, updatePushParams } from '../../modules/push/push-params.js';
import type { PushService } from '../../modules/push/push.service.js';

/** /api/v1/push/subscription: the Web Push subscription of the calling token (scope `push`, a user's token). */
export function pushRouter(deps: {
  push: PushService;
  accounts: AccountService;
  guards: BearerGuards;
}): Router {
  const { push, accounts, guards } = deps;
  const json = (row: Parameters<typeof serializeWebPushSubscription>[0]) =>
    serializeWebPushSubscription(row, push.vapidPublicKey);
  const router = Router();
  router
    .route('/api/v1/push/subscription')
    .post(
      guards.requireUser('push'),
      validated({ body: createPushParams }, async ({ body }, res) => {
        const account = await accounts.activeAccount(userIdOf(res));
        const { subscription, data } = body;
        const row = await push.subscribe(authOf(res).tokenId, account.id, {
          endpoint: subscription.endpoint,
          p256dh: subscription.keys.p256dh,
          auth: subscription.keys.auth,
          standard: subscription.standard ?? false,
          alerts: data.alerts,
          policy: data.policy ?? body.policy ?? 'all',
        });
        res.json(json(row));
      }),
    )
    .get(
      guards.requireUser('push'),
      validated({}, async (_input, res) => {
        res.json(json(await push.get(authOf(res).tokenId)));
      }),
    )
    .put(
      guards.requireUser('push'),
      validated({ body: updatePushParams }, async ({ body }, res) => {
        const { alerts, policy } = body.data;
        res.json(
          json(await push.update(authOf(res).tokenId, { alerts, policy: policy ?? body.policy ?? 'all' })),
        );
      }),
    )
    .delete(
      guards.requireUser('push'),
      validated({}, async (_input, res) => {
        await push.unsubscribe(authOf(res).tokenId);
        res.json({});
      }),
    )
    .all(methodNotAllowed(['GET', 'POST', 'PUT', 'DELETE']));
  return router;
}
