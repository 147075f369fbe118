import type { Request, RequestHandler, Response } from 'express';
import passport from 'passport';
import { BasicStrategy } from 'passport-http';
import type { RateLimiter, User, UserStore } from '@agora/auth';
import { isAppError } from '@agora/core';
import { TransportError } from '../../http/errors.js';
import { loginLimitChecks } from './login-limits.js';

const REALM = 'Application';
/** The early API's answer to missing or wrong credentials (Devise's message, as JSON). */
export const HTTP_BASIC_DENIED = 'HTTP Basic: Access denied.';

/** The account a preceding `requireBasicUser()` signed in on this route. */
export function basicUserOf(res: Response): User {
  const user = (res.locals as { basicUser?: User }).basicUser;
  if (!user) throw new Error('basicUserOf() used on a route without requireBasicUser()');
  return user;
}

/**
 * HTTP basic authentication (email + password) for the unversioned early `/api` paths, through
 * passport-http on an Authenticator of our own (no process-wide passport state, no sessions).
 *
 * Wrong credentials count against the login throttles of the other sign-in paths (per address and
 * per e-mail); once either is spent, even the right password gets 429 until the window ends. Only
 * failures count: a client of this API sends its password with every request.
 */
export function httpBasicGuard(
  users: UserStore,
  limiter: RateLimiter,
): { requireBasicUser(): RequestHandler } {
  const signIn = async (req: Request, email: string, password: string): Promise<User | false> => {
    const checks = loginLimitChecks(req.ip, email);
    const caller = { ip: req.ip };
    await limiter.ensureAvailable(checks, caller);
    try {
      return await users.authenticate(email, password);
    } catch (error) {
      // Refused credentials are a failure (401), anything else an error (500).
      if (!isAppError(error) || error.status >= 500) throw error;
      await limiter.recordFailure(checks, caller);
      return false;
    }
  };
  const authenticator = new passport.Passport();
  authenticator.use(
    new BasicStrategy({ realm: REALM, passReqToCallback: true }, (req, email, password, done) => {
      signIn(req, email, password).then(
        (user) => done(null, user),
        (error: unknown) => done(error),
      );
    }),
  );
  const denied = () =>
    new TransportError(401, HTTP_BASIC_DENIED, undefined, { 'WWW-Authenticate': `Basic realm="${REALM}"` });

  return {
    requireBasicUser: () => (req, res, next) => {
      authenticator.authenticate('basic', { session: false }, (error: unknown, user: User | false) => {
        if (error) next(error);
        else if (!user) next(denied());
        else {
          (res.locals as { basicUser?: User }).basicUser = user;
          next();
        }
      })(req, res, next);
    },
  };
}
