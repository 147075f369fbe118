import { Router } from 'express';
import { Forbidden, Unauthenticated } from '@agora/core';
import { scopesAllow } from '@agora/auth';
import { z } from 'zod';
import { serializeAccount } from '../../entities/account.js';
import { serializeTag } from '../../entities/tag.js';
import { methodNotAllowed } from '../../http/errors.js';
import { paramsObject, validated } from '../../http/request-schema.js';
import { railsBoolean } from '../../modules/accounts/account-validation.js';
import { BEARER_ERRORS, lookupBearer } from '../../modules/oauth/bearer.js';
import type { SearchService, SearchType } from '../../modules/search/search.service.js';
import { jsonArray, statusesJson, type StatusRouteDeps } from '../../modules/statuses/statuses-http.js';

export interface SearchRouterDeps extends StatusRouteDeps {
  search: SearchService;
  publicUrl: string;
}

const flag = z
  .unknown()
  .transform((value) => railsBoolean(value) ?? false)
  .optional();
const text = z
  .unknown()
  .transform((value) => (typeof value === 'string' ? value : null))
  .optional();
const count = (fallback: number, max: number) =>
  z
    .unknown()
    .transform((value) => {
      const n =
        typeof value === 'string' || typeof value === 'number' ? Number.parseInt(String(value), 10) : NaN;
      return Number.isFinite(n) && n > 0 ? Math.min(n, max) : fallback;
    })
    .optional();
const offset = z
  .unknown()
  .transform((value) => {
    const n =
      typeof value === 'string' || typeof value === 'number' ? Number.parseInt(String(value), 10) : NaN;
    return Number.isFinite(n) && n > 0 ? n : 0;
  })
  .optional();

/** GET /api/v2/search (not-shown.md §2.2): `type` unknown finds nothing, as the reference. */
export const searchQuery = paramsObject({
  q: text,
  type: text,
  resolve: flag,
  following: flag,
  account_id: text,
  exclude_unreviewed: flag,
  limit: count(20, 40),
  offset,
  max_id: text,
  min_id: text,
});

const TYPES: readonly SearchType[] = ['accounts', 'statuses', 'hashtags'];

/**
 * /api/v2/search: public without a token (no `resolve`, no `offset`), `read:search` with one
 * (Mastodon 4.0). Answers the Search entity {accounts, statuses, hashtags}.
 */
export function searchRouter(deps: SearchRouterDeps): Router {
  const router = Router();
  router
    .route('/api/v2/search')
    .get(
      validated({ query: searchQuery }, async ({ query }, res, req) => {
        const auth = await lookupBearer(req, res, deps.oauth);
        if (
          auth === null &&
          (req.headers.authorization !== undefined || typeof req.query.access_token === 'string')
        )
          throw new Unauthenticated(BEARER_ERRORS.invalid);
        if (auth !== null && !scopesAllow(auth.scopes, ['read:search']))
          throw new Forbidden(BEARER_ERRORS.scopes);
        const viewer =
          auth === null || auth.userId === null
            ? null
            : { userId: auth.userId, accountId: await deps.accounts.activeAccountId(auth.userId) };
        const type = query.type ?? null;
        if (type !== null && !TYPES.includes(type as SearchType)) {
          res.json({ accounts: [], statuses: [], hashtags: [] });
          return;
        }
        const found = await deps.search.search(viewer, {
          q: query.q ?? '',
          type: type as SearchType | null,
          resolve: query.resolve ?? false,
          following: query.following ?? false,
          accountId: query.account_id ?? null,
          excludeUnreviewed: query.exclude_unreviewed ?? false,
          limit: query.limit ?? 20,
          offset: query.offset ?? 0,
          maxId: query.max_id ?? null,
          minId: query.min_id ?? null,
        });
        const statuses = await statusesJson(deps, found.statuses, viewer?.accountId ?? null, 'public');
        // The statuses are already JSON text (ADR 0047): the Search entity is written around them,
        // keys in the order res.json gave them.
        const accounts = JSON.stringify(found.accounts.map((view) => serializeAccount(view, deps.publicUrl)));
        const hashtags = JSON.stringify(found.hashtags.map((tag) => serializeTag(tag, deps.publicUrl)));
        res
          .type('json')
          .send(`{"accounts":${accounts},"statuses":${jsonArray(statuses)},"hashtags":${hashtags}}`);
      }),
    )
    .all(methodNotAllowed(['GET']));
  return router;
}
