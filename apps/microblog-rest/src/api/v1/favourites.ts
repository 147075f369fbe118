import { Router } from 'express';
import { z } from 'zod';
import { setPageLinks } from '../../http/link-header.js';
import { validated } from '../../http/request-schema.js';
import type { BearerGuards } from '../../modules/oauth/bearer.js';
import { callerAccount, statusesJson, type StatusRouteDeps } from '../../modules/statuses/statuses-http.js';
import { pageRequest, STATUS_PAGE } from '../../modules/timelines/pagination.js';
import type { TimelineService } from '../../modules/timelines/timeline.service.js';

/** GET /api/v1/favourites: the caller's favourites, newest first, paged by an internal id (Link only, §2). */
export function favouritesRouter(
  deps: StatusRouteDeps & { timelines: TimelineService; guards: BearerGuards; publicUrl: string },
): Router {
  const router = Router();
  router.get(
    '/api/v1/favourites',
    deps.guards.requireUser('read:favourites'),
    validated({ query: z.object(STATUS_PAGE) }, async ({ query }, res, req) => {
      const account = await callerAccount(deps, res);
      const rows = await deps.timelines.marked('favourites', account.id, pageRequest(query, 20));
      const first = rows[0];
      const last = rows.at(-1);
      setPageLinks(
        req,
        res,
        deps.publicUrl,
        first && last ? { newest: first.cursor, oldest: last.cursor } : null,
      );
      res.json(
        await statusesJson(
          deps,
          rows.map((row) => row.id),
          account.id,
        ),
      );
    }),
  );
  return router;
}
