import type { Router } from 'express';
import { markedStatusesRouter, type MarkedStatusesDeps } from './marked-statuses.js';

/** GET /api/v1/bookmarks: the caller's bookmarks, newest first (Link-paged, §2). */
export function bookmarksRouter(deps: MarkedStatusesDeps): Router {
  return markedStatusesRouter('bookmarks', deps);
}
