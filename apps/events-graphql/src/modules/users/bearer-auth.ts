import type { Request, RequestHandler } from 'express';
import type { JwtSessions } from '@agora/auth';
import { sendInvalidToken } from '../../graphql/errors.js';

const BEARER = /^Bearer\s+(\S*)\s*$/i;

/**
 * Reads `Authorization: Bearer <jwt>` once per request, before GraphQL: a valid access token names the
 * caller, a present but unusable one is a 401 the GraphQL layer never sees, no header is anonymous.
 */
export class BearerAuthentication {
  private readonly callers = new WeakMap<Request, string>();

  constructor(private readonly sessions: Pick<JwtSessions, 'verifyAccess'>) {}

  readonly middleware: RequestHandler = (req, res, next) => {
    // Other schemes (a proxy's Basic credentials…) are not ours to judge: the caller is anonymous.
    const token = BEARER.exec(req.headers.authorization ?? '')?.[1];
    if (token === undefined) return next();
    this.sessions.verifyAccess(token).then((result) => {
      if (!result.ok) return sendInvalidToken(res, result.reason);
      this.callers.set(req, result.userId);
      next();
    }, next);
  };

  /** The user id the middleware verified for this request, if any. */
  userIdOf(req: Request): string | undefined {
    return this.callers.get(req);
  }
}
