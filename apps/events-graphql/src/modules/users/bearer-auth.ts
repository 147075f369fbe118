import type { IncomingMessage } from 'node:http';
import type { NextFunction, RequestHandler, Response } from 'express';
import type { AccessCheck, JwtSessions } from '@agora/auth';
import { sendInvalidToken } from '../../graphql/errors.js';

const BEARER = /^Bearer\s+(\S*)\s*$/i;

/**
 * Reads `Authorization: Bearer <jwt>` once per request, before GraphQL: a valid access token names the
 * caller, a present but unusable one is a 401 the GraphQL layer never sees, no header is anonymous.
 */
export class BearerAuthentication {
  private readonly callers = new WeakMap<IncomingMessage, { userId: string; sessionId?: string }>();

  constructor(private readonly sessions: Pick<JwtSessions, 'cachedAccess' | 'verifyAccess'>) {}

  readonly middleware: RequestHandler = (req, res, next) => {
    // Other schemes (a proxy's Basic credentials…) are not ours to judge: the caller is anonymous.
    const header = req.headers.authorization;
    const token = header === undefined ? undefined : BEARER.exec(header)?.[1];
    if (token === undefined) return next();
    // A token verified before is answered at once: no promise hop on every authenticated request.
    const known = this.sessions.cachedAccess(token);
    if (known) return this.settle(req, res, next, known);
    this.sessions.verifyAccess(token).then((result) => this.settle(req, res, next, result), next);
  };

  private settle(req: IncomingMessage, res: Response, next: NextFunction, result: AccessCheck): void {
    if (!result.ok) return sendInvalidToken(res, result.reason);
    this.callers.set(req, { userId: result.userId, sessionId: result.sessionId });
    next();
  }

  /** The user id the middleware verified for this request, if any. */
  userIdOf(req: IncomingMessage): string | undefined {
    return this.callers.get(req)?.userId;
  }

  /** The session of the access token the middleware verified for this request, if it names one. */
  sessionIdOf(req: IncomingMessage): string | undefined {
    return this.callers.get(req)?.sessionId;
  }
}
