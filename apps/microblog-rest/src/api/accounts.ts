import { Router } from 'express';
import { z } from 'zod';
import type { RateLimiter, UserStore } from '@agora/auth';
import { serializeAccount } from '../entities/account.js';
import { serializeRelationship } from '../entities/relationship.js';
import { methodNotAllowed } from '../http/errors.js';
import { pageParams, setLinkHeader } from '../http/link-pagination.js';
import { pathParam, validated } from '../http/request-schema.js';
import type { AccountService } from '../modules/accounts/account.service.js';
import { basicUserOf, httpBasicGuard } from '../modules/oauth/http-basic.js';
import type { RelationshipService } from '../modules/relationships/index.js';

const byId = { params: z.object({ id: pathParam }) };

/**
 * The first API (seed §Endpoints, HTTP basic with e-mail and password): accounts, whom they follow
 * and who follows them, follow and unfollow by id (`POST /api/follows` is `api/follows.ts`). Each
 * answers the entity its /api/v1 successor does.
 */
export function earlyAccountsRouter(
  accounts: AccountService,
  relationships: RelationshipService,
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
      validated(byId, async ({ params }, res) => {
        res.json(serializeAccount(await accounts.findById(params.id), publicUrl));
      }),
    )
    .all(methodNotAllowed(['GET']));

  for (const direction of ['following', 'followers'] as const) {
    router
      .route(`/api/accounts/:id/${direction}`)
      .get(
        requireBasicUser(),
        validated({ ...byId, query: pageParams() }, async ({ params, query }, res, req) => {
          const page = await relationships.followList(direction, params.id, query, basicUserOf(res).id);
          setLinkHeader(req, res, publicUrl, page, query.limit);
          res.json(page.items.map((view) => serializeAccount(view, publicUrl)));
        }),
      )
      .all(methodNotAllowed(['GET']));
  }

  for (const action of ['follow', 'unfollow'] as const) {
    router
      .route(`/api/accounts/:id/${action}`)
      .post(
        requireBasicUser(),
        validated(byId, async ({ params }, res) => {
          const userId = basicUserOf(res).id;
          const relationship =
            action === 'follow'
              ? await relationships.follow(userId, params.id, {})
              : await relationships.unfollow(userId, params.id);
          res.json(serializeRelationship(relationship));
        }),
      )
      .all(methodNotAllowed(['POST']));
  }

  return router;
}
