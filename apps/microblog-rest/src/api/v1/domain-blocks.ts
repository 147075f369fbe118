import { Router, type Request } from 'express';
import { methodNotAllowed } from '../../http/errors.js';
import { pageParams, setLinkHeader } from '../../http/link-pagination.js';
import { parseInput, validated } from '../../http/request-schema.js';
import { userIdOf, type BearerGuards } from '../../modules/oauth/bearer.js';
import { domainParams, type RelationshipService } from '../../modules/relationships/index.js';

/**
 * /api/v1/domain_blocks: the domains the caller hides (GET: strings, Link pagination), and POST /
 * DELETE with `domain` (in the body; some clients put it in the query), both answering `{}`.
 */
export function domainBlocksRouter(
  relationships: RelationshipService,
  guards: BearerGuards,
  publicUrl: string,
): Router {
  const router = Router();
  const domainOf = (req: Request) =>
    parseInput(domainParams, req.body ?? {}).domain ?? parseInput(domainParams, req.query).domain;
  router
    .route('/api/v1/domain_blocks')
    .get(
      guards.requireUser('read:blocks'),
      validated({ query: pageParams(100, 200) }, async ({ query }, res, req) => {
        const page = await relationships.domainBlockList(userIdOf(res), query);
        setLinkHeader(req, res, publicUrl, page, query.limit);
        res.json(page.items);
      }),
    )
    .post(guards.requireUser('write:blocks'), async (req, res) => {
      await relationships.blockDomain(userIdOf(res), domainOf(req));
      res.json({});
    })
    .delete(guards.requireUser('write:blocks'), async (req, res) => {
      await relationships.unblockDomain(userIdOf(res), domainOf(req));
      res.json({});
    })
    .all(methodNotAllowed(['GET', 'POST', 'DELETE']));
  return router;
}
