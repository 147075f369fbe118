import { Router, type RequestHandler } from 'express';
import { methodNotAllowed } from '../../http/errors.js';
import type { BearerGuards } from '../../modules/oauth/bearer.js';

/**
 * The lists today's clients call on their first screens that nothing here keeps yet: they answer
 * an empty JSON array (as Hollo does for trends and suggestions; not-shown.md §2.2 priority B), so a
 * client shows an empty section instead of an error. Who calls them:
 * - `GET /api/v1/custom_emojis` (public): Phanpy's composer and emoji picker
 *   (`masto.v1.customEmojis.list()` in cheeaun/phanpy src/utils/custom-emojis.js).
 * - `GET /api/v1/trends/{tags,statuses,links}` and `/api/v1/trends` (public): Phanpy's Trending page
 *   and search (`masto.v1.trends.tags.list()`, cheeaun/phanpy src/pages/trending.jsx).
 * - `GET /api/v1/featured_tags` (read:accounts): Phanpy's hashtag page (`masto.v1.featuredTags.list()`);
 *   `/featured_tags/suggestions` and `/api/v1/endorsements` (read:accounts) are masto.js's
 *   `v1.featuredTags.suggestions.list()` and `v1.endorsements.list()`.
 * - `GET /api/v2/suggestions` (read): listed with the first-screen stubs of not-shown.md §2.2.
 * The per-account lists (`/api/v1/accounts/:id/featured_tags`, `/endorsements`) are in accounts.ts;
 * `/api/v1/followed_tags` (Elk's and Phanpy's home) is real, in tags.ts.
 */
export function discoveryRouter(guards: BearerGuards): Router {
  const router = Router();
  const empty: RequestHandler = (_req, res) => {
    res.json([]);
  };
  const list = (path: string, ...guard: RequestHandler[]) =>
    router
      .route(path)
      .get(...guard, empty)
      .all(methodNotAllowed(['GET']));

  list('/api/v1/custom_emojis');
  for (const trend of ['', '/tags', '/statuses', '/links']) list(`/api/v1/trends${trend}`);
  list('/api/v1/featured_tags', guards.requireUser('read:accounts'));
  list('/api/v1/featured_tags/suggestions', guards.requireUser('read:accounts'));
  list('/api/v1/endorsements', guards.requireUser('read:accounts'));
  list('/api/v2/suggestions', guards.requireUser('read'));
  return router;
}
