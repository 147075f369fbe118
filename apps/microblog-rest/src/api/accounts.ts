import { Router } from 'express';
import { z } from 'zod';
import type { RateLimiter, UserStore } from '@agora/auth';
import { serializeAccount } from '../entities/account.js';
import { methodNotAllowed } from '../http/errors.js';
import { pathParam, validated } from '../http/request-schema.js';
import type { AccountService } from '../modules/accounts/account.service.js';
import { httpBasicGuard } from '../modules/oauth/http-basic.js';

/** The first API's GET /api/accounts/:id, signed in with HTTP basic (e-mail and password). */
export function earlyAccountsRouter(
  accounts: AccountService,
  users: UserStore,
  limiter: RateLimiter,
  publicUrl: string,
): Router {
  const router = Router();
  const { requireBasicUser } = httpBasicGuard(users, limiter);
  router
    .route('/api/accounts/:id')
    .get(
      requireBasicUser(),
      validated({ params: z.object({ id: pathParam }) }, async ({ params }, res) => {
        res.json(serializeAccount(await accounts.findById(params.id), publicUrl));
      }),
    )
    .all(methodNotAllowed(['GET']));
  return router;
}
