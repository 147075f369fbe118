import type { Request, RequestHandler, Response } from 'express';
import { scopesAllow, type Scope } from '@agora/auth';
import { BadInput, Forbidden, Unauthenticated } from '@agora/core';
import type { BearerAuth, OAuthService } from './oauth.service.js';

/** The reference's messages for each way a bearer check fails. */
export const BEARER_ERRORS = {
  invalid: 'The access token is invalid',
  scopes: 'This action is outside the authorized scopes',
  userRequired: 'This method requires an authenticated user',
} as const;

/** `Authorization: Bearer <token>`; the token is group 1. */
export const BEARER_TOKEN_HEADER = /^Bearer\s+(\S+)\s*$/i;

/** The token of a request: `Authorization: Bearer …`, else the `access_token` query parameter. */
export function bearerToken(req: Request): string | undefined {
  const header = req.headers.authorization;
  if (header !== undefined) return BEARER_TOKEN_HEADER.exec(header)?.[1];
  const query = req.query.access_token;
  return typeof query === 'string' && query !== '' ? query : undefined;
}

const LOOKUP = Symbol('agora.bearerLookup');
const NO_TOKEN: Promise<BearerAuth | null> = Promise.resolve(null);

/**
 * The request's bearer lookup, made once and kept on `res.locals`: the `/api` rate limiter (which
 * counts by token) and the route's guard share it, so a request costs one lookup, not two.
 */
export function lookupBearer(req: Request, res: Response, oauth: OAuthService): Promise<BearerAuth | null> {
  const locals = res.locals as Record<symbol, Promise<BearerAuth | null> | undefined>;
  let lookup = locals[LOOKUP];
  if (lookup === undefined) {
    const token = bearerToken(req);
    lookup = token === undefined ? NO_TOKEN : oauth.authenticateBearer(token);
    locals[LOOKUP] = lookup;
  }
  return lookup;
}

/** The caller resolved by a preceding `requireToken`/`requireScopes` on this route. */
export function authOf(res: Response): BearerAuth {
  const auth = (res.locals as { auth?: BearerAuth }).auth;
  if (!auth) throw new Error('authOf() used on a route without requireToken/requireScopes');
  return auth;
}

/** The user of a route guarded by `requireUser` (which let only user tokens through). */
export function userIdOf(res: Response): string {
  const { userId } = authOf(res);
  if (userId === null) throw new Error('userIdOf() used on a route without requireUser');
  return userId;
}

export interface BearerGuards {
  /** Any valid token (app or user), whatever its scopes. */
  requireToken(): RequestHandler;
  /** A valid token holding at least one of `scopes` (the hierarchy applies: `read` covers `read:accounts`). */
  requireScopes(...scopes: Scope[]): RequestHandler;
  /** As requireScopes, and the token must belong to a user (not a client_credentials app token). */
  requireUser(...scopes: Scope[]): RequestHandler;
}

/** Route guards declared on each route; the token is looked up only on routes that need it. */
export function bearerGuards(oauth: OAuthService): BearerGuards {
  const guard =
    (scopes: readonly Scope[], needUser: boolean): RequestHandler =>
    async (req, res, next) => {
      const auth = await lookupBearer(req, res, oauth);
      if (!auth) throw new Unauthenticated(BEARER_ERRORS.invalid);
      if (scopes.length > 0 && !scopesAllow(auth.scopes, scopes)) throw new Forbidden(BEARER_ERRORS.scopes);
      if (needUser && auth.userId === null) throw new BadInput(BEARER_ERRORS.userRequired);
      (res.locals as { auth?: BearerAuth }).auth = auth;
      next();
    };
  return {
    requireToken: () => guard([], false),
    requireScopes: (...scopes) => guard(scopes, false),
    requireUser: (...scopes) => guard(scopes, true),
  };
}
