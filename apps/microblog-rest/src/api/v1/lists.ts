import { Router } from 'express';
import { z } from 'zod';
import { NotFound } from '@agora/core';
import { isRowId } from '@agora/db';
import { serializeAccount } from '../../entities/account.js';
import { serializeList } from '../../entities/list.js';
import { methodNotAllowed } from '../../http/errors.js';
import { pageParams, setLinkHeader } from '../../http/link-pagination.js';
import { pathParam, validated } from '../../http/request-schema.js';
import type { AccountService } from '../../modules/accounts/account.service.js';
import { accountIdsParams, createListParams, updateListParams } from '../../modules/lists/list-params.js';
import type { ListService } from '../../modules/lists/list.service.js';
import { userIdOf, type BearerGuards } from '../../modules/oauth/bearer.js';
import { loadAccounts } from '../../modules/statuses/views/accounts.view.js';

export interface ListsRouterDeps {
  lists: ListService;
  accounts: AccountService;
  guards: BearerGuards;
  publicUrl: string;
  accountViews: Parameters<typeof loadAccounts>[0];
}

const byId = { params: z.object({ id: pathParam }) };

/**
 * /api/v1/lists (CRUD), /api/v1/lists/:id/accounts (members: accounts the caller follows) and
 * /api/v1/accounts/:id/lists (the caller's lists holding an account). A list of another account is
 * "Record not found", as an unknown one.
 */
export function listsRouter(deps: ListsRouterDeps): Router {
  const { lists, guards, publicUrl } = deps;
  const router = Router();
  const owner = async (res: Parameters<typeof userIdOf>[0]) => deps.accounts.activeAccountId(userIdOf(res));

  router
    .route('/api/v1/lists')
    .get(
      guards.requireUser('read:lists'),
      validated({}, async (_input, res) => {
        res.json((await lists.all(await owner(res))).map(serializeList));
      }),
    )
    .post(
      guards.requireUser('write:lists'),
      validated({ body: createListParams }, async ({ body }, res) => {
        const list = await lists.create(await owner(res), {
          title: body.title ?? '',
          repliesPolicy: body.replies_policy,
          exclusive: body.exclusive,
        });
        res.json(serializeList(list));
      }),
    )
    .all(methodNotAllowed(['GET', 'POST']));

  router
    .route('/api/v1/lists/:id')
    .get(
      guards.requireUser('read:lists'),
      validated(byId, async ({ params }, res) => {
        res.json(serializeList(await lists.get(await owner(res), params.id)));
      }),
    )
    .put(
      guards.requireUser('write:lists'),
      validated({ ...byId, body: updateListParams }, async ({ params, body }, res) => {
        const list = await lists.update(await owner(res), params.id, {
          title: body.title,
          repliesPolicy: body.replies_policy,
          exclusive: body.exclusive,
        });
        res.json(serializeList(list));
      }),
    )
    .delete(
      guards.requireUser('write:lists'),
      validated(byId, async ({ params }, res) => {
        await lists.remove(await owner(res), params.id);
        res.json({});
      }),
    )
    .all(methodNotAllowed(['GET', 'PUT', 'DELETE']));

  router
    .route('/api/v1/lists/:id/accounts')
    .get(
      guards.requireUser('read:lists'),
      validated({ ...byId, query: pageParams(40, 80) }, async ({ params, query }, res, req) => {
        // `limit=0`: every member, unpaged (the reference's documented exception).
        const all = req.query.limit === '0';
        const page = await lists.members(await owner(res), params.id, all ? { limit: null } : query);
        const accounts = await loadAccounts(
          deps.accountViews,
          page.items.map((item) => item.accountId),
        );
        if (!all) setLinkHeader(req, res, publicUrl, page, query.limit);
        res.json(
          page.items.flatMap((item) => {
            const view = accounts.get(item.accountId);
            return view ? [serializeAccount(view, publicUrl)] : [];
          }),
        );
      }),
    )
    .post(
      guards.requireUser('write:lists'),
      validated({ ...byId, body: accountIdsParams }, async ({ params, body }, res) => {
        await lists.addMembers(await owner(res), params.id, body.account_ids);
        res.json({});
      }),
    )
    .delete(
      guards.requireUser('write:lists'),
      validated({ ...byId, body: accountIdsParams }, async ({ params, body }, res) => {
        await lists.removeMembers(await owner(res), params.id, body.account_ids);
        res.json({});
      }),
    )
    .all(methodNotAllowed(['GET', 'POST', 'DELETE']));

  router.get(
    '/api/v1/accounts/:id/lists',
    guards.requireUser('read:lists'),
    validated(byId, async ({ params }, res) => {
      const ownerId = await owner(res);
      // An unknown account is "not found", as the reference answers.
      if (!isRowId(params.id) || !(await deps.accountViews.actors.findById(params.id))) {
        throw new NotFound('Record not found');
      }
      res.json((await lists.listsWith(ownerId, params.id)).map(serializeList));
    }),
  );

  return router;
}
