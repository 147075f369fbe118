import type { Request, Response } from 'express';
import { Unauthenticated } from '@agora/core';
import type { Actor } from '@agora/federation';
import { serializeFilterResult } from '../../entities/filter.js';
import { serializeStatus, type StatusJson, type StatusJsonContext } from '../../entities/status.js';
import type { FilterContext, FilterService } from '../notifications/filter.service.js';
import type { AccountService } from '../accounts/account.service.js';
import { BEARER_ERRORS, lookupBearer, userIdOf } from '../oauth/bearer.js';
import type { OAuthService } from '../oauth/oauth.service.js';
import type { StatusService } from './status.service.js';

/** What the statuses and timelines routes share. */
export interface StatusRouteDeps {
  statuses: StatusService;
  accounts: AccountService;
  oauth: OAuthService;
  json: StatusJsonContext;
  /** The viewer's content filters, applied to the reads that name their context. */
  filters?: Pick<FilterService, 'matcher'> | undefined;
}

/** The signed-in caller's account (a route guarded by `requireUser`). */
export function callerAccount(deps: StatusRouteDeps, res: Response): Promise<Actor> {
  return deps.accounts.activeAccount(userIdOf(res));
}

/**
 * The viewer of a read that is public for public statuses: the account of a user token, null without
 * a token or with an app token; a token that is sent but invalid is a 401, as the reference answers.
 */
export async function optionalViewer(
  deps: StatusRouteDeps,
  req: Request,
  res: Response,
): Promise<string | null> {
  const auth = await lookupBearer(req, res, deps.oauth);
  if (auth === null) {
    if (req.headers.authorization !== undefined || typeof req.query.access_token === 'string') {
      throw new Unauthenticated(BEARER_ERRORS.invalid);
    }
    return null;
  }
  if (auth.userId === null) return null;
  return (await deps.accounts.activeAccount(auth.userId)).id;
}

/**
 * Statuses' JSON in the order of `ids` (ids the viewer cannot see, or that went, are left out). In a
 * filter `context` (home, public, thread…), each carries the viewer's matching filters in `filtered`
 * and those a `hide` filter of that context matches are left out.
 */
export async function statusesJson(
  deps: StatusRouteDeps,
  ids: readonly string[],
  viewerId: string | null,
  context?: FilterContext,
): Promise<StatusJson[]> {
  const [views, matcher] = await Promise.all([
    deps.statuses.views(ids, viewerId),
    context === undefined || deps.filters === undefined ? null : deps.filters.matcher(viewerId, context),
  ]);
  return ids.flatMap((id) => {
    const view = views.get(id);
    if (!view) return [];
    if (matcher === null) return [serializeStatus(view, deps.json)];
    const { matches, hidden } = matcher.match(view);
    return hidden ? [] : [serializeStatus(view, deps.json, { filtered: matches.map(serializeFilterResult) })];
  });
}

/** One status's JSON for the viewer. Errors: NotFound. */
export async function statusJson(
  deps: StatusRouteDeps,
  id: string,
  viewerId: string | null,
  options: { withText?: boolean } = {},
): Promise<StatusJson> {
  return serializeStatus(await deps.statuses.view(id, viewerId), deps.json, options);
}
