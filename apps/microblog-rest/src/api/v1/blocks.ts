import { Router } from 'express';
import { serializeAccount } from '../../entities/account.js';
import { methodNotAllowed } from '../../http/errors.js';
import { pageParams, setLinkHeader } from '../../http/link-pagination.js';
import { validated } from '../../http/request-schema.js';
import { userIdOf, type BearerGuards } from '../../modules/oauth/bearer.js';
import type { RelationshipService } from '../../modules/relationships/index.js';

/** GET /api/v1/blocks: the accounts the caller blocks, newest block first (Link pagination). */
export function blocksRouter(
  relationships: RelationshipService,
  guards: BearerGuards,
  publicUrl: string,
): Router {
  const router = Router();
  router
    .route('/api/v1/blocks')
    .get(
      guards.requireUser('read:blocks'),
      validated({ query: pageParams() }, async ({ query }, res, req) => {
        const page = await relationships.blockList(userIdOf(res), query);
        setLinkHeader(req, res, publicUrl, page, query.limit);
        res.json(page.items.map((view) => serializeAccount(view, publicUrl)));
      }),
    )
    .all(methodNotAllowed(['GET']));
  return router;
}
