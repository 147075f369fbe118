import { Router } from 'express';
import { z } from 'zod';
import { serializeScheduledStatus } from '../../entities/scheduled-status.js';
import { methodNotAllowed } from '../../http/errors.js';
import { pageParams, setLinkHeader } from '../../http/link-pagination.js';
import { paramsObject, pathParam, validated } from '../../http/request-schema.js';
import { VALIDATION } from '../../http/validation-codes.js';
import { userIdOf, type BearerGuards } from '../../modules/oauth/bearer.js';
import type { ScheduledStatusService } from '../../modules/scheduled-statuses/scheduled-status.service.js';
import type { StatusRouteDeps } from '../../modules/statuses/statuses-http.js';
import { scheduledAt } from '../../modules/statuses/status-params.js';

export interface ScheduledStatusesRouterDeps extends StatusRouteDeps {
  scheduledStatuses: ScheduledStatusService;
  guards: BearerGuards;
  publicUrl: string;
}

const byId = { params: z.object({ id: pathParam }) };
const rescheduleParams = paramsObject({
  scheduled_at: scheduledAt.transform((value, ctx) => {
    if (value === undefined) ctx.addIssue({ code: 'custom', message: VALIDATION.blank.message });
    return value;
  }),
});

/** /api/v1/scheduled_statuses: the caller's statuses kept for later (list, read, move, delete). */
export function scheduledStatusesRouter(deps: ScheduledStatusesRouterDeps): Router {
  const { scheduledStatuses, guards, publicUrl } = deps;
  const router = Router();
  const json = (view: Parameters<typeof serializeScheduledStatus>[0]) =>
    serializeScheduledStatus(view, deps.json.mediaUrl);
  const accountOf = (res: Parameters<typeof userIdOf>[0]) => deps.accounts.activeAccount(userIdOf(res));

  router
    .route('/api/v1/scheduled_statuses')
    .get(
      guards.requireUser('read:statuses'),
      validated({ query: pageParams(20, 40) }, async ({ query }, res, req) => {
        const account = await accountOf(res);
        const page = await scheduledStatuses.list(account.id, query);
        setLinkHeader(req, res, publicUrl, page, query.limit);
        res.json(page.items.map(json));
      }),
    )
    .all(methodNotAllowed(['GET']));

  router
    .route('/api/v1/scheduled_statuses/:id')
    .get(
      guards.requireUser('read:statuses'),
      validated(byId, async ({ params }, res) => {
        const account = await accountOf(res);
        res.json(json(await scheduledStatuses.get(account.id, params.id)));
      }),
    )
    .put(
      guards.requireUser('write:statuses'),
      validated({ ...byId, body: rescheduleParams }, async ({ params, body }, res) => {
        const account = await accountOf(res);
        res.json(json(await scheduledStatuses.reschedule(account.id, params.id, body.scheduled_at!)));
      }),
    )
    .delete(
      guards.requireUser('write:statuses'),
      validated(byId, async ({ params }, res) => {
        const account = await accountOf(res);
        await scheduledStatuses.remove(account.id, params.id);
        res.json({});
      }),
    )
    .all(methodNotAllowed(['GET', 'PUT', 'DELETE']));

  return router;
}
