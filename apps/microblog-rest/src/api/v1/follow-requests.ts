import { Router } from 'express';
import { z } from 'zod';
import { serializeAccount } from '../../entities/account.js';
import { serializeRelationship } from '../../entities/relationship.js';
import { methodNotAllowed } from '../../http/errors.js';
import { pageParams, setLinkHeader } from '../../http/link-pagination.js';
import { pathParam, validated } from '../../http/request-schema.js';
import { userIdOf, type BearerGuards } from '../../modules/oauth/bearer.js';
import type { RelationshipService } from '../../modules/relationships/index.js';

/** Mastodon's /api/v1/follow_requests: who asks to follow the caller, and the answers. */
export function followRequestsRouter(
  relationships: RelationshipService,
  guards: BearerGuards,
  publicUrl: string,
): Router {
  const router = Router();
  router
    .route('/api/v1/follow_requests')
    .get(
      guards.requireUser('read:follows'),
      validated({ query: pageParams() }, async ({ query }, res, req) => {
        const page = await relationships.followRequests(userIdOf(res), query);
        setLinkHeader(req, res, publicUrl, page, query.limit);
        res.json(page.items.map((view) => serializeAccount(view, publicUrl)));
      }),
    )
    .all(methodNotAllowed(['GET']));

  for (const answer of ['authorize', 'reject'] as const) {
    router
      .route(`/api/v1/follow_requests/:account_id/${answer}`)
      .post(
        guards.requireUser('write:follows'),
        validated({ params: z.object({ account_id: pathParam }) }, async ({ params }, res) => {
          const userId = userIdOf(res);
          const relationship =
            answer === 'authorize'
              ? await relationships.authorize(userId, params.account_id)
              : await relationships.reject(userId, params.account_id);
          res.json(serializeRelationship(relationship));
        }),
      )
      .all(methodNotAllowed(['POST']));
  }
  return router;
}
