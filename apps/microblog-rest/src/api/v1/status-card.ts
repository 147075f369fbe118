import { Router } from 'express';
import { z } from 'zod';
import { serializePreviewCard } from '../../entities/preview-card.js';
import { pathParam, validated } from '../../http/request-schema.js';
import { optionalViewer, type StatusRouteDeps } from '../../modules/statuses/statuses-http.js';

/**
 * GET /api/v1/statuses/:id/card (Mastodon < 3.0, still called by megalodon's `getStatusCard`): the
 * card of a status the caller may see, `{}` while it has none.
 */
export function statusCardRouter(deps: StatusRouteDeps): Router {
  const router = Router();
  router.get(
    '/api/v1/statuses/:id/card',
    validated({ params: z.object({ id: pathParam }) }, async ({ params }, res, req) => {
      const viewer = await optionalViewer(deps, req, res);
      const view = await deps.statuses.visibleView(params.id, viewer);
      res.json(view.card ? serializePreviewCard(view.card) : {});
    }),
  );
  return router;
}
