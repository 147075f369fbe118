import { Router } from 'express';
import type { RateLimiter, UserStore } from '@agora/auth';
import { z } from 'zod';
import { methodNotAllowed } from '../http/errors.js';
import { pathParam, validated } from '../http/request-schema.js';
import { basicUserOf, httpBasicGuard } from '../modules/oauth/http-basic.js';
import { createStatusParams } from '../modules/statuses/status-params.js';
import { statusJson, type StatusRouteDeps } from '../modules/statuses/statuses-http.js';

const byId = { params: z.object({ id: pathParam }) };

/**
 * The first API's statuses (seed: POST /api/statuses with status and in_reply_to_id, GET
 * /api/statuses/:id, POST /api/statuses/:id/reblog), signed in with HTTP basic and answering the
 * same Status entity as /api/v1. Wrong credentials are a 401 with a challenge, counted like logins.
 */
export function earlyStatusesRouter(
  deps: StatusRouteDeps & { users: UserStore; limiter: RateLimiter },
): Router {
  const router = Router();
  const { requireBasicUser } = httpBasicGuard(deps.users, deps.limiter);
  const caller = (res: Parameters<typeof basicUserOf>[0]) => deps.accounts.activeAccount(basicUserOf(res).id);

  router
    .route('/api/statuses')
    .post(
      requireBasicUser(),
      validated({ body: createStatusParams }, async ({ body }, res) => {
        const account = await caller(res);
        const id = await deps.statuses.create(account, {
          text: body.status,
          mediaIds: body.media_ids ?? [],
          inReplyToId: body.in_reply_to_id,
          sensitive: body.sensitive,
          spoilerText: body.spoiler_text,
          visibility: body.visibility,
          language: body.language,
          idempotencyKey: undefined,
          // No OAuth application: the early API signs in with a password.
          applicationId: null,
        });
        res.json(await statusJson(deps, id, account.id));
      }),
    )
    .all(methodNotAllowed(['POST']));

  router
    .route('/api/statuses/:id')
    .get(
      requireBasicUser(),
      validated(byId, async ({ params }, res) => {
        const account = await caller(res);
        const row = await deps.statuses.visibleRow(params.id, account.id);
        res.json(await statusJson(deps, row.id, account.id));
      }),
    )
    .all(methodNotAllowed(['GET']));

  router
    .route('/api/statuses/:id/reblog')
    .post(
      requireBasicUser(),
      validated(byId, async ({ params }, res) => {
        const account = await caller(res);
        const id = await deps.statuses.reblog(account, params.id, undefined);
        res.json(await statusJson(deps, id, account.id));
      }),
    )
    .all(methodNotAllowed(['POST']));

  return router;
}
