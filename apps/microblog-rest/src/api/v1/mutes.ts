import { Router } from 'express';
import { serializeMutedAccount } from '../../entities/account.js';
import { methodNotAllowed } from '../../http/errors.js';
import { pageParams, setLinkHeader } from '../../http/link-pagination.js';
import { validated } from '../../http/request-schema.js';
import { userIdOf, type BearerGuards } from '../../modules/oauth/bearer.js';
import type { RelationshipService } from '../../modules/relationships/index.js';

/** GET /api/v1/mutes: muted accounts (MutedAccount: with `mute_expires_at`), newest mute first. */
export function mutesRouter(
  relationships: RelationshipService,
  guards: BearerGuards,
  publicUrl: string,
): Router {
  const router = Router();
  router
    .route('/api/v1/mutes')
    .get(
      guards.requireUser('read:mutes'),
      validated({ query: pageParams() }, async ({ query }, res, req) => {
        const page = await relationships.muteList(userIdOf(res), query);
        setLinkHeader(req, res, publicUrl, page, query.limit);
        res.json(page.items.map((view) => serializeMutedAccount(view, view.muteExpiresAt, publicUrl)));
      }),
    )
    .all(methodNotAllowed(['GET']));
  return router;
}
