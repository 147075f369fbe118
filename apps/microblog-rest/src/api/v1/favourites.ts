import type { Router } from 'express';
import { markedStatusesRouter, type MarkedStatusesDeps } from './marked-statuses.js';

/** GET /api/v1/favourites: the caller's favourites, newest first (Link-paged, §2). */
export function favouritesRouter(deps: MarkedStatusesDeps): Router {
  return markedStatusesRouter('favourites', deps);
}
