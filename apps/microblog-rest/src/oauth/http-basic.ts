import type { RequestHandler, Response } from 'express';
import passport from 'passport';
import { BasicStrategy } from 'passport-http';
import type { User, UserStore } from '@agora/auth';
import { isAppError } from '@agora/core';
import { TransportError } from '../http/errors.js';

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
 */
export function httpBasicGuard(users: UserStore): { requireBasicUser(): RequestHandler } {
  const authenticator = new passport.Passport();
  authenticator.use(
    new BasicStrategy({ realm: REALM }, (email, password, done) => {
      users.authenticate(email, password).then(
        (user) => done(null, user),
        // Refused credentials are a failure (401), anything else an error (500).
        (error: unknown) => (isAppError(error) && error.status < 500 ? done(null, false) : done(error)),
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
