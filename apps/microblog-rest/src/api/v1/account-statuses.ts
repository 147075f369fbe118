import { Router } from 'express';
import type { Sequelize } from 'sequelize';
import { z } from 'zod';
import { methodNotAllowed } from '../../http/errors.js';
import { pageOf, pageRequest, setLinkHeader, STATUS_PAGE } from '../../http/link-pagination.js';
import { optionalText, pathParam, validated } from '../../http/request-schema.js';
import { railsBoolean } from '../../modules/accounts/account-validation.js';
import {
  jsonArray,
  optionalViewer,
  statusesJson,
  type StatusRouteDeps,
} from '../../modules/statuses/statuses-http.js';
import { accountStatusIds } from '../../modules/timelines/views/account-statuses.view.js';

export interface AccountStatusesRouterDeps extends StatusRouteDeps {
  sequelize: Sequelize;
  publicUrl: string;
}

// Rails booleans; absent reads as false.
const flag = z
  .unknown()
  .transform((value) => railsBoolean(value) ?? false)
  .optional();

const query = z.object({
  ...STATUS_PAGE,
  only_media: flag,
  exclude_replies: flag,
  exclude_reblogs: flag,
  pinned: flag,
  tagged: optionalText,
});

/**
 * GET /api/v1/accounts/:id/statuses: an account's profile timeline, public (a token, when sent, shows
 * what its account may see), newest first and Link-paged (not-shown.md §2.2, §2.5: 20, at most 40),
 * filtered in the `account` context (v2 filters).
 */
export function accountStatusesRouter(deps: AccountStatusesRouterDeps): Router {
  const router = Router();
  router
    .route('/api/v1/accounts/:id/statuses')
    .get(
      validated({ params: z.object({ id: pathParam }), query }, async ({ params, query }, res, req) => {
        const viewer = await optionalViewer(deps, req, res);
        const { actor } = await deps.accounts.findById(params.id);
        // A suspended account shows nothing (Mastodon's AccountStatusesFilter: `unavailable?`).
        const ids = actor.suspended
          ? []
          : await accountStatusIds(
              deps.sequelize,
              actor.id,
              viewer,
              {
                onlyMedia: query.only_media ?? false,
                excludeReplies: query.exclude_replies ?? false,
                excludeReblogs: query.exclude_reblogs ?? false,
                pinned: query.pinned ?? false,
                tagged: query.tagged,
              },
              pageRequest(query, 20),
            );
        const json = await statusesJson(deps, ids, viewer, 'account');
        setLinkHeader(
          req,
          res,
          deps.publicUrl,
          pageOf(ids, (id) => id),
        );
        res.type('json').send(jsonArray(json));
      }),
    )
    .all(methodNotAllowed(['GET']));
  return router;
}
