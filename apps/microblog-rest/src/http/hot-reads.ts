import { Router } from 'express';
import type { Scope } from '@agora/auth';
import { authOf, type BearerGuards } from '../modules/oauth/bearer.js';
import type { BearerAuth } from '../modules/oauth/oauth.service.js';
import { methodNotAllowed } from './errors.js';

/**
 * A GET that clients send with a bearer token on every start or refresh (verify_credentials…): the
 * fast lane (`fast-lane.ts`) answers it before Express, and the same definition mounts the Express
 * route that answers everything the lane hands over (refused tokens, conditional requests, HEAD).
 */
export interface HotRead {
  /** The exact path, without a query string. */
  path: string;
  /** The token needs one of these scopes (the hierarchy applies); empty: any valid token. */
  scopes: readonly Scope[];
  /** Whether the token must belong to a user (an app token gets 422). */
  user: boolean;
  /** The JSON entity of the answer; a thrown AppError becomes the usual `{"error"}` response. */
  render(auth: BearerAuth): unknown;
}

/**
 * A GET whose answer a process may keep whole (the first page of home, ADR 0049): the fast lane
 * answers it before Express only when `kept` gives the kept answer, checked against the database;
 * otherwise Express answers it through its own route (nothing was sent or counted).
 */
export interface HotPage {
  /** The exact path, without a query string. */
  path: string;
  scopes: readonly Scope[];
  /** Whether the token must belong to a user. */
  user: boolean;
  /** The kept answer (200) still true for this caller, or undefined. */
  kept(auth: BearerAuth): Promise<KeptAnswer | undefined>;
}

/** A 200 answer as its Express route sent it: JSON body, ETag (as the app makes them) and headers. */
export interface KeptAnswer {
  body: Buffer;
  etag: string | undefined;
  headers: Readonly<Record<string, string>>;
}

/** The Express routes of the hot reads: the path taken by every request the fast lane hands over. */
export function hotReadsRouter(reads: readonly HotRead[], guards: BearerGuards): Router {
  const router = Router();
  for (const read of reads) mountHotRead(router, guards, read);
  return router;
}

/** Mounts `read` on `router` as a guarded Express route (405 for other methods). */
function mountHotRead(router: Router, guards: BearerGuards, read: HotRead): void {
  const guard = read.user
    ? guards.requireUser(...read.scopes)
    : read.scopes.length > 0
      ? guards.requireScopes(...read.scopes)
      : guards.requireToken();
  router
    .route(read.path)
    .get(guard, async (_req, res) => {
      res.json(await read.render(authOf(res)));
    })
    .all(methodNotAllowed(['GET']));
}
