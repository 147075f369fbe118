import { Router } from 'express';
import { z } from 'zod';
import { pageOf, pageRequest, setLinkHeader, STATUS_PAGE } from '../../http/link-pagination.js';
import { validated } from '../../http/request-schema.js';
import type { BearerGuards } from '../../modules/oauth/bearer.js';
import {
  callerAccount,
  jsonArray,
  statusesJson,
  type StatusRouteDeps,
} from '../../modules/statuses/statuses-http.js';
import type { TimelineService } from '../../modules/timelines/timeline.service.js';

export type MarkedStatusesDeps = StatusRouteDeps & {
  timelines: TimelineService;
  guards: BearerGuards;
  publicUrl: string;
};

/**
 * GET /api/v1/favourites and /api/v1/bookmarks: the caller's marked statuses, newest mark first,
 * paged by the mark's internal id (Link only, §2).
 */
export function markedStatusesRouter(kind: 'favourites' | 'bookmarks', deps: MarkedStatusesDeps): Router {
  const router = Router();
  router.get(
    `/api/v1/${kind}`,
    deps.guards.requireUser(`read:${kind}`),
    validated({ query: z.object(STATUS_PAGE) }, async ({ query }, res, req) => {
      const account = await callerAccount(deps, res);
      const rows = await deps.timelines.marked(kind, account.id, pageRequest(query, 20));
      setLinkHeader(
        req,
        res,
        deps.publicUrl,
        pageOf(rows, (row) => row.cursor),
      );
      const statuses = await statusesJson(
        deps,
        rows.map((row) => row.id),
        account.id,
      );
      res.type('json').send(jsonArray(statuses));
    }),
  );
  return router;
}
