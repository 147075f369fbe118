import type { Request, Response } from 'express';
import { Unauthenticated } from '@agora/core';
import type { Actor } from '@agora/federation';
import { serializeFilterResult } from '../../entities/filter.js';
import { serializeStatus, type StatusJson, type StatusJsonContext } from '../../entities/status.js';
import type { StatusView } from './views/status.view.js';
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
  return deps.accounts.activeAccountId(auth.userId);
}

/** One status's JSON text in a list (what `JSON.stringify` gives of its entity). */
export interface StatusText {
  id: string;
  json: string;
}

/** The JSON text of an array of statuses' texts. */
export function jsonArray(items: readonly StatusText[]): string {
  return `[${items.map((item) => item.json).join(',')}]`;
}

/**
 * Statuses' JSON texts in the order of `ids` (ids that do not exist, or whose account or reblogged
 * original went, are left out; the caller chose ids the viewer may see). In a filter `context`
 * (home, public, thread…), each carries the viewer's matching filters in `filtered` and those a
 * `hide` filter of that context matches are left out.
 *
 * One statement reads what changes often (render stamps, counters, the viewer's flags); the rest is
 * this process's cached renderings, made again only for what is missing or stale (ADR 0039, 0047).
 * Statuses with a poll (theirs or their original's) are rendered whole for the viewer, as the poll
 * shows the viewer's votes and changes with every vote.
 */
export async function statusesJson(
  deps: StatusRouteDeps,
  ids: readonly string[],
  viewerId: string | null,
  context?: FilterContext,
): Promise<StatusText[]> {
  if (ids.length === 0) return [];
  const page = await deps.statuses.facts(ids, viewerId);
  const matcher =
    context === undefined || deps.filters === undefined || !page.hasFilters
      ? null
      : await deps.filters.matcher(viewerId, context);
  const polled = (entry: (typeof page.entries)[number]) =>
    entry.status.hasPoll || (entry.reblog?.hasPoll ?? false);
  const cached = page.entries.filter((entry) => !polled(entry));
  const pollIds = page.entries.filter(polled).map((entry) => entry.status.id);
  const [texts, views] = await Promise.all([
    cached.length === 0
      ? []
      : deps.statuses.rendered.renderEach(cached, viewerId, deps.statuses.renderLoaders, deps.json, matcher),
    pollIds.length === 0 ? new Map<string, StatusView>() : deps.statuses.views(pollIds, viewerId),
  ]);
  const rendered = new Map<string, string>();
  cached.forEach((entry, index) => {
    const text = texts[index];
    if (text !== null && text !== undefined) rendered.set(entry.status.id, text);
  });
  for (const [id, view] of views) {
    if (matcher === null) {
      rendered.set(id, JSON.stringify(serializeStatus(view, deps.json)));
      continue;
    }
    const { matches, hidden } = matcher.match(view);
    if (!hidden) {
      const filtered = matches.map(serializeFilterResult);
      rendered.set(id, JSON.stringify(serializeStatus(view, deps.json, { filtered })));
    }
  }
  return page.entries.flatMap((entry) => {
    const json = rendered.get(entry.status.id);
    return json === undefined ? [] : [{ id: entry.status.id, json }];
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
