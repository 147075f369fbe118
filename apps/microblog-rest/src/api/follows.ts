import { Router } from 'express';
import type { RateLimiter, UserStore } from '@agora/auth';
import { serializeAccount } from '../entities/account.js';
import { methodNotAllowed } from '../http/errors.js';
import { optionalText, paramsObject, validated } from '../http/request-schema.js';
import { basicUserOf, httpBasicGuard } from '../modules/oauth/http-basic.js';
import type { RelationshipService } from '../modules/relationships/index.js';

/**
 * The first API's `POST /api/follows` (HTTP basic): follows `uri` = `user@domain`, found through
 * WebFinger when this server does not know it yet; answers the followed Account. The reference
 * removed it in 3.0 (spec not-shown.md §1.1); the seed lists it.
 */
export function earlyFollowsRouter(
  relationships: RelationshipService,
  users: UserStore,
  limiter: RateLimiter,
  publicUrl: string,
): Router {
  const router = Router();
  const { requireBasicUser } = httpBasicGuard(users, limiter);
  router
    .route('/api/follows')
    .post(
      requireBasicUser(),
      validated({ body: paramsObject({ uri: optionalText }) }, async ({ body }, res) => {
        const followed = await relationships.followAddress(basicUserOf(res).id, body.uri);
        res.json(serializeAccount(followed, publicUrl));
      }),
    )
    .all(methodNotAllowed(['POST']));
  return router;
}
