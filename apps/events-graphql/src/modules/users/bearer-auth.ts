import type { IncomingMessage } from 'node:http';
import type { RequestHandler } from 'express';
import type { JwtSessions } from '@agora/auth';
import { sendInvalidToken } from '../../graphql/errors.js';

const BEARER = /^Bearer\s+(\S*)\s*$/i;

/**
 * Reads `Authorization: Bearer <jwt>` once per request, before GraphQL: a valid access token names the
 * caller, a present but unusable one is a 401 the GraphQL layer never sees, no header is anonymous.
 */
export class BearerAuthentication {
  private readonly callers = new WeakMap<IncomingMessage, { userId: string; sessionId?: string }>();

  constructor(private readonly sessions: Pick<JwtSessions, 'checkAccess'>) {}

  readonly middleware: RequestHandler = (req, res, next) => {
    // Other schemes (a proxy's Basic credentials…) are not ours to judge: the caller is anonymous.
    const header = req.headers.authorization;
    const token = header === undefined ? undefined : BEARER.exec(header)?.[1];
    if (token === undefined) return next();
    // Synchronous (one HMAC): no promise hop before GraphQL on every authenticated request.
    const result = this.sessions.checkAccess(token);
    if (!result.ok) return sendInvalidToken(res, result.reason);
    this.callers.set(req, { userId: result.userId, sessionId: result.sessionId });
    next();
  };

  /**
   * The middleware's check for a request outside Express (the GraphQL fast lane): undefined when
   * anonymous, true when the caller is now known, false when refused (the middleware answers those).
   */
  authenticate(req: IncomingMessage): boolean | undefined {
    const header = req.headers.authorization;
    const token = header === undefined ? undefined : BEARER.exec(header)?.[1];
    if (token === undefined) return undefined;
    const result = this.sessions.checkAccess(token);
    if (result.ok) this.callers.set(req, { userId: result.userId, sessionId: result.sessionId });
    return result.ok;
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
