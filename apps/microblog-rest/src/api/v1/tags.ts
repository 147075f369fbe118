import { Router } from 'express';
import { z } from 'zod';
import { serializeTag } from '../../entities/tag.js';
import { methodNotAllowed } from '../../http/errors.js';
import { pageParams, setLinkHeader } from '../../http/link-pagination.js';
import { validated } from '../../http/request-schema.js';
import type { BearerGuards } from '../../modules/oauth/bearer.js';
import { callerAccount, optionalViewer, type StatusRouteDeps } from '../../modules/statuses/statuses-http.js';
import type { TagService } from '../../modules/tags/tag.service.js';

export interface TagsRouterDeps extends StatusRouteDeps {
  tags: TagService;
  guards: BearerGuards;
  publicUrl: string;
}

const byName = { params: z.object({ name: z.string() }) };

/**
 * Hashtags (issue 16 §2; not-shown.md §2.3 Tag): GET /api/v1/tags/:name (public; `following` with a
 * user token), POST …/follow and …/unfollow (write:follows), GET /api/v1/followed_tags (read:follows,
 * Link-paged). A followed tag brings new public statuses into the home feed (TagService.fanOut).
 */
export function tagsRouter(deps: TagsRouterDeps): Router {
  const { tags, guards, publicUrl } = deps;
  const router = Router();

  router
    .route('/api/v1/tags/:name')
    .get(
      validated(byName, async ({ params }, res, req) => {
        const viewer = await optionalViewer(deps, req, res);
        res.json(serializeTag(await tags.tag(params.name, viewer), publicUrl));
      }),
    )
    .all(methodNotAllowed(['GET']));

  for (const action of ['follow', 'unfollow'] as const) {
    router
      .route(`/api/v1/tags/:name/${action}`)
      .post(
        guards.requireUser('write:follows'),
        validated(byName, async ({ params }, res) => {
          const account = await callerAccount(deps, res);
          res.json(serializeTag(await tags[action](params.name, account.id), publicUrl));
        }),
      )
      .all(methodNotAllowed(['POST']));
  }

  router
    .route('/api/v1/followed_tags')
    .get(
      guards.requireUser('read:follows'),
      validated({ query: pageParams(100, 200) }, async ({ query }, res, req) => {
        const account = await callerAccount(deps, res);
        const page = await tags.followed(account.id, query);
        setLinkHeader(req, res, publicUrl, page, query.limit);
        res.json(page.items.map((tag) => serializeTag(tag, publicUrl)));
      }),
    )
    .all(methodNotAllowed(['GET']));

  return router;
}
