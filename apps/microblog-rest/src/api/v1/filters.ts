import { Router } from 'express';
import { z } from 'zod';
import { BadInput } from '@agora/core';
import { serializeV1Filter } from '../../entities/filter.js';
import { methodNotAllowed } from '../../http/errors.js';
import { pathParam, validated } from '../../http/request-schema.js';
import { v1FilterParams } from '../../modules/notifications/notification-params.js';
import { callerId, type NotificationRouteDeps } from '../../modules/notifications/notifications-http.js';

const byId = { params: z.object({ id: pathParam }) };

/**
 * /api/v1/filters (deprecated since 4.0, still called by megalodon and older clients): each keyword of
 * a v2 filter is one v1 filter (its id is the keyword's); `irreversible` is the `hide` action.
 */
export function filtersV1Router(
  deps: Pick<NotificationRouteDeps, 'filters' | 'accounts' | 'guards'>,
): Router {
  const { filters, guards } = deps;
  const read = guards.requireUser('read:filters');
  const write = guards.requireUser('write:filters');
  const router = Router();

  router
    .route('/api/v1/filters')
    .get(
      read,
      validated({}, async (_input, res) => {
        const all = await filters.list(await callerId(deps, res));
        res.json(
          all.flatMap((filter) => filter.keywords.map((keyword) => serializeV1Filter(filter, keyword))),
        );
      }),
    )
    .post(
      write,
      validated({ body: v1FilterParams }, async ({ body }, res) => {
        const phrase = (body.phrase ?? '').trim();
        if (phrase === '')
          throw new BadInput("Validation failed: Phrase can't be blank", {
            fields: { phrase: ["can't be blank"] },
          });
        const filter = await filters.create(await callerId(deps, res), {
          title: phrase,
          context: body.context,
          action: body.irreversible ? 'hide' : 'warn',
          expiresIn: body.expires_in ?? null,
          keywords: [{ keyword: phrase, wholeWord: body.whole_word ?? true }],
        });
        res.json(serializeV1Filter(filter, filter.keywords[0]!));
      }),
    )
    .all(methodNotAllowed(['GET', 'POST']));

  router
    .route('/api/v1/filters/:id')
    .get(
      read,
      validated(byId, async ({ params }, res) => {
        const { filter, keyword } = await filters.keywordWithFilter(await callerId(deps, res), params.id);
        res.json(serializeV1Filter(filter, keyword));
      }),
    )
    .put(
      write,
      validated({ ...byId, body: v1FilterParams }, async ({ params, body }, res) => {
        const accountId = await callerId(deps, res);
        const { filter, keyword } = await filters.keywordWithFilter(accountId, params.id);
        const updated = await filters.update(accountId, filter.id, {
          context: body.context,
          action: body.irreversible === undefined ? undefined : body.irreversible ? 'hide' : 'warn',
          expiresIn: body.expires_in,
          keywords: [{ id: keyword.id, keyword: body.phrase, wholeWord: body.whole_word }],
        });
        res.json(
          serializeV1Filter(
            updated,
            updated.keywords.find((k) => k.id === keyword.id)!,
          ),
        );
      }),
    )
    .delete(
      write,
      validated(byId, async ({ params }, res) => {
        await filters.removeKeyword(await callerId(deps, res), params.id);
        res.json({});
      }),
    )
    .all(methodNotAllowed(['GET', 'PUT', 'DELETE']));

  return router;
}
