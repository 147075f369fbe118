import { Router, type Request, type Response } from 'express';
import { NotFound } from '@agora/core';
import { z } from 'zod';
import type { HotPage, KeptAnswer } from '../../http/hot-reads.js';
import { pageOf, pageRequest, setLinkHeader, STATUS_PAGE } from '../../http/link-pagination.js';
import { validated } from '../../http/request-schema.js';
import { railsBoolean } from '../../modules/accounts/account-validation.js';
import { RECORD_NOT_FOUND } from '../../modules/accounts/account.service.js';
import type { FilterContext } from '../../modules/notifications/filter.service.js';
import { userIdOf, type BearerGuards } from '../../modules/oauth/bearer.js';
import {
  callerAccount,
  jsonArray,
  optionalViewer,
  statusesJson,
  type StatusRouteDeps,
} from '../../modules/statuses/statuses-http.js';
import type { KeptHomePage } from '../../modules/timelines/home-page-cache.js';
import type { TimelineService } from '../../modules/timelines/timeline.service.js';
import type { ListService } from '../../modules/lists/list.service.js';

export interface TimelinesRouterDeps extends StatusRouteDeps {
  timelines: TimelineService;
  lists: ListService;
  guards: BearerGuards;
  publicUrl: string;
}

// Optional: zod 4 refuses an absent key otherwise; absent reads as false / none in the handlers.
const flag = z
  .unknown()
  .transform((value) => railsBoolean(value) ?? false)
  .optional();
/** `any[]`, `all[]`, `none[]`: an array or one value; anything else reads as none. */
const tagList = z
  .unknown()
  .transform((value) => {
    const list = Array.isArray(value) ? value : value === undefined ? [] : [value];
    return list
      .filter((item): item is string => typeof item === 'string' && item.trim() !== '')
      .map((item) => item.trim().replace(/^#/, ''));
  })
  .optional();

/** The Content-Type res.json sends. */
const JSON_TYPE = 'application/json; charset=utf-8';

const publicQuery = z.object({ ...STATUS_PAGE, local: flag, remote: flag, only_media: flag });

/** The first page of home, as clients ask for it on every start and refresh. */
const HOME_PATH = '/api/v1/timelines/home';
/** That page's request (no query string). */
const FIRST_PAGE = pageRequest({}, 20);

/**
 * The first page of home (no query string) for the fast lane: the page this process kept for the
 * caller, once its token is read unchanged (one statement, ADR 0049), with the headers the route
 * sent; anything else is the route's.
 */
export function keptHomeFirstPage(timelines: TimelineService, publicUrl: string): HotPage {
  // The answer of each kept page, made on its first use: a kept page is answered as it is.
  const answers = new WeakMap<KeptHomePage, KeptAnswer>();
  const answerOf = (kept: KeptHomePage): KeptAnswer => {
    let answer = answers.get(kept);
    if (answer === undefined) {
      // What setLinkHeader writes for a request without a query string.
      const base = `${publicUrl}${HOME_PATH}`;
      const headers: Record<string, string> = kept.cursors
        ? {
            Link: `<${base}?max_id=${kept.cursors.oldest}>; rel="next", <${base}?min_id=${kept.cursors.newest}>; rel="prev"`,
          }
        : {};
      answer = Object.freeze({ body: kept.body, etag: kept.etag, headers: Object.freeze(headers) });
      answers.set(kept, answer);
    }
    return answer;
  };
  return {
    path: HOME_PATH,
    scopes: ['read:statuses'],
    user: true,
    async kept(auth) {
      if (auth.userId === null) return undefined;
      const kept = await timelines.keptHomePage(auth.userId, FIRST_PAGE);
      return kept === undefined ? undefined : answerOf(kept);
    },
  };
}

/** /api/v1/timelines: home and list (signed in), public and tag (public). Newest first, Link-paged (§2). */
export function timelinesRouter(deps: TimelinesRouterDeps): Router {
  const { timelines, guards } = deps;
  const router = Router();

  const setLinks = (req: Request, res: Response, ids: string[]) =>
    setLinkHeader(
      req,
      res,
      deps.publicUrl,
      pageOf(ids, (id) => id),
    );
  const sendPage = (req: Request, res: Response, ids: string[], text: string) => {
    setLinks(req, res, ids);
    // Already JSON text: sent as res.json would send it (ADR 0047).
    res.type('json').send(text);
  };
  const answer = async (
    req: Request,
    res: Response,
    ids: string[],
    viewer: string | null,
    context: FilterContext,
  ) => sendPage(req, res, ids, jsonArray(await statusesJson(deps, ids, viewer, context)));

  router.get(
    HOME_PATH,
    guards.requireUser('read:statuses'),
    validated({ query: z.object(STATUS_PAGE) }, async ({ query }, res, req) => {
      const userId = userIdOf(res);
      const request = pageRequest(query, 20);
      // A page kept in this process whose token still holds is the answer, as it was (ADR 0049).
      const kept = await timelines.keptHomePage(userId, request);
      if (kept) {
        setLinkHeader(req, res, deps.publicUrl, { items: [], ...kept.cursors });
        if (kept.etag !== undefined) res.set('ETag', kept.etag);
        res.set('Content-Type', JSON_TYPE).send(kept.body);
        return;
      }
      const page = await timelines.homePage(userId, request);
      if (page === null) {
        // No usable account: the accounts service gives the refusal every guarded route gives
        // (disabled, unconfirmed, none); one that became usable meanwhile is asked again.
        await callerAccount(deps, res);
        throw new NotFound(RECORD_NOT_FOUND);
      }
      const ids = page.entries.map((entry) => entry.status.id);
      // Polls carry the viewer's votes and change with every vote: such pages take the whole view.
      if (page.entries.some((entry) => entry.status.hasPoll || entry.reblog?.hasPoll)) {
        return answer(req, res, ids, page.accountId, 'home');
      }
      // Already JSON text (ADR 0039): sent as res.json would send it, without serializing again.
      const text = await timelines.rendered.render(
        page.entries,
        page.accountId,
        {
          statuses: (ids) => deps.statuses.views(ids, null),
          accounts: (ids) => deps.statuses.accountViews(ids),
        },
        deps.json,
        page.hasFilters && deps.filters ? await deps.filters.matcher(page.accountId, 'home') : null,
      );
      setLinks(req, res, ids);
      const body = Buffer.from(text);
      const etagOf = req.app.get('etag fn') as ((body: Buffer) => string | undefined) | undefined;
      const etag = etagOf?.(body);
      if (etag !== undefined) res.set('ETag', etag);
      timelines.homePages.put(userId, request, {
        source: page.source,
        body,
        etag,
        cursors: ids.length > 0 ? { newest: ids[0]!, oldest: ids.at(-1)! } : null,
      });
      // What res.json sends (type, length, ETag), without serializing again.
      res.set('Content-Type', JSON_TYPE).send(body);
    }),
  );

  // A list's feed (written on post like home); another account's list is 404.
  router.get(
    '/api/v1/timelines/list/:id',
    guards.requireUser('read:lists'),
    validated(
      { params: z.object({ id: z.string() }), query: z.object(STATUS_PAGE) },
      async ({ params, query }, res, req) => {
        const account = await callerAccount(deps, res);
        await answer(
          req,
          res,
          await deps.lists.timeline(account.id, params.id, pageRequest(query, 20)),
          account.id,
          // Filters apply to lists in their home context, as the reference does.
          'home',
        );
      },
    ),
  );

  router.get(
    '/api/v1/timelines/public',
    validated({ query: publicQuery }, async ({ query }, res, req) => {
      const viewer = await optionalViewer(deps, req, res);
      const filter = {
        local: query.local ?? false,
        remote: query.remote ?? false,
        onlyMedia: query.only_media ?? false,
      };
      await answer(req, res, await timelines.public(filter, pageRequest(query, 20)), viewer, 'public');
    }),
  );

  router.get(
    '/api/v1/timelines/tag/:hashtag',
    validated(
      {
        params: z.object({ hashtag: z.string() }),
        query: publicQuery.extend({ any: tagList, all: tagList, none: tagList }),
      },
      async ({ params, query }, res, req) => {
        const viewer = await optionalViewer(deps, req, res);
        const ids = await timelines.tag(
          {
            local: query.local ?? false,
            remote: query.remote ?? false,
            onlyMedia: query.only_media ?? false,
            any: [params.hashtag.replace(/^#/, ''), ...(query.any ?? [])],
            all: query.all ?? [],
            none: query.none ?? [],
          },
          pageRequest(query, 20),
        );
        await answer(req, res, ids, viewer, 'public');
      },
    ),
  );

  return router;
}
