import { Router } from 'express';
import { z } from 'zod';
import { serializeFilter, serializeFilterKeyword, serializeFilterStatus } from '../../entities/filter.js';
import { methodNotAllowed } from '../../http/errors.js';
import { pathParam, validated } from '../../http/request-schema.js';
import {
  filterParams,
  filterStatusParams,
  keywordParams,
} from '../../modules/notifications/notification-params.js';
import { callerId, type NotificationRouteDeps } from '../../modules/notifications/notifications-http.js';

const byId = { params: z.object({ id: pathParam }) };

/**
 * /api/v2/filters (Mastodon 4.0): the caller's filters with their keywords and statuses
 * (read:filters / write:filters). Keywords and statuses also have routes of their own.
 */
export function filtersV2Router(
  deps: Pick<NotificationRouteDeps, 'filters' | 'accounts' | 'guards'>,
): Router {
  const { filters, guards } = deps;
  const read = guards.requireUser('read:filters');
  const write = guards.requireUser('write:filters');
  const router = Router();

  router
    .route('/api/v2/filters')
    .get(
      read,
      validated({}, async (_input, res) => {
        res.json((await filters.list(await callerId(deps, res))).map(serializeFilter));
      }),
    )
    .post(
      write,
      validated({ body: filterParams }, async ({ body }, res) => {
        const filter = await filters.create(await callerId(deps, res), {
          title: body.title,
          context: body.context,
          action: body.filter_action,
          expiresIn: body.expires_in ?? null,
          keywords: body.keywords_attributes,
        });
        res.json(serializeFilter(filter));
      }),
    )
    .all(methodNotAllowed(['GET', 'POST']));

  // Before `/:id`, which would read "keywords" and "statuses" as ids.
  router
    .route('/api/v2/filters/keywords/:id')
    .get(
      read,
      validated(byId, async ({ params }, res) => {
        res.json(serializeFilterKeyword(await filters.keyword(await callerId(deps, res), params.id)));
      }),
    )
    .put(
      write,
      validated({ ...byId, body: keywordParams }, async ({ params, body }, res) => {
        const keyword = await filters.updateKeyword(await callerId(deps, res), params.id, {
          keyword: body.keyword,
          wholeWord: body.whole_word,
        });
        res.json(serializeFilterKeyword(keyword));
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

  router
    .route('/api/v2/filters/statuses/:id')
    .get(
      read,
      validated(byId, async ({ params }, res) => {
        res.json(serializeFilterStatus(await filters.filterStatus(await callerId(deps, res), params.id)));
      }),
    )
    .delete(
      write,
      validated(byId, async ({ params }, res) => {
        await filters.removeStatus(await callerId(deps, res), params.id);
        res.json({});
      }),
    )
    .all(methodNotAllowed(['GET', 'DELETE']));

  router
    .route('/api/v2/filters/:id')
    .get(
      read,
      validated(byId, async ({ params }, res) => {
        res.json(serializeFilter(await filters.get(await callerId(deps, res), params.id)));
      }),
    )
    .put(
      write,
      validated({ ...byId, body: filterParams }, async ({ params, body }, res) => {
        const filter = await filters.update(await callerId(deps, res), params.id, {
          title: body.title,
          context: body.context,
          action: body.filter_action,
          expiresIn: body.expires_in,
          keywords: body.keywords_attributes,
        });
        res.json(serializeFilter(filter));
      }),
    )
    .delete(
      write,
      validated(byId, async ({ params }, res) => {
        await filters.remove(await callerId(deps, res), params.id);
        res.json({});
      }),
    )
    .all(methodNotAllowed(['GET', 'PUT', 'DELETE']));

  router
    .route('/api/v2/filters/:id/keywords')
    .get(
      read,
      validated(byId, async ({ params }, res) => {
        const filter = await filters.get(await callerId(deps, res), params.id);
        res.json(filter.keywords.map(serializeFilterKeyword));
      }),
    )
    .post(
      write,
      validated({ ...byId, body: keywordParams }, async ({ params, body }, res) => {
        const keyword = await filters.addKeyword(await callerId(deps, res), params.id, {
          keyword: body.keyword,
          wholeWord: body.whole_word,
        });
        res.json(serializeFilterKeyword(keyword));
      }),
    )
    .all(methodNotAllowed(['GET', 'POST']));

  router
    .route('/api/v2/filters/:id/statuses')
    .get(
      read,
      validated(byId, async ({ params }, res) => {
        const filter = await filters.get(await callerId(deps, res), params.id);
        res.json(filter.statuses.map(serializeFilterStatus));
      }),
    )
    .post(
      write,
      validated({ ...byId, body: filterStatusParams }, async ({ params, body }, res) => {
        const status = await filters.addStatus(await callerId(deps, res), params.id, body.status_id);
        res.json(serializeFilterStatus(status));
      }),
    )
    .all(methodNotAllowed(['GET', 'POST']));

  return router;
}
