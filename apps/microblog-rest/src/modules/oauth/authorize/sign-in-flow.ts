import { randomBytes } from 'node:crypto';
import type { Request, Response } from 'express';
import type { z } from 'zod';
import {
  parseScopes,
  scopesWithin,
  type RateLimiter,
  type Scope,
  type User,
  type UserStore,
} from '@agora/auth';
import { isAppError, RateLimited, type Logger } from '@agora/core';
import { optionalText, paramsObject, parseInput } from '../../../http/request-schema.js';
import { readCookies, setCookie } from '../../sessions/cookies.js';
import { hmac, sameString } from '../../sessions/keys.js';
import type { SessionActivation, SessionActivations } from '../../sessions/session-activations.js';
import type { TwoFactorService } from '../../two-factor/two-factor.service.js';
import { loginLimitChecks } from '../login-limits.js';
import {
  DEFAULT_SCOPES,
  OOB_REDIRECT_URI,
  type OAuthApplication,
  type OAuthService,
} from '../oauth.service.js';
import {
  approvalPage,
  codePage,
  messagePage,
  signedOutPage,
  signInPage,
  twoFactorPage,
  type CarriedParams,
  type PageFrame,
} from './pages.js';

export interface AuthorizePagesDeps {
  oauth: OAuthService;
  users: UserStore;
  sessions: SessionActivations;
  twoFactor: TwoFactorService;
  limiter: RateLimiter;
  logger: Logger;
  publicUrl: string;
  instanceTitle: string;
  /** HMAC keys derived from SECRET_KEY_BASE: CSRF tokens and the half-finished (2FA) sign-in. */
  keys: { csrf: Buffer; pendingSignIn: Buffer };
}

// The authorization request's parameters, carried from page to page; wrong types count as absent.
const AUTHORIZATION = {
  response_type: optionalText,
  client_id: optionalText,
  redirect_uri: optionalText,
  scope: optionalText,
  state: optionalText,
  code_challenge: optionalText,
  code_challenge_method: optionalText,
};
const CARRIED = Object.keys(AUTHORIZATION) as Array<keyof typeof AUTHORIZATION>;
type AuthorizationParams = z.output<z.ZodObject<typeof AUTHORIZATION>>;

// What each page reads: these pages answer HTML, so a schema here never fails.
const authorizeQuery = paramsObject({ ...AUTHORIZATION, force_login: optionalText });
const decisionForm = paramsObject({
  ...AUTHORIZATION,
  authenticity_token: optionalText,
  decision: optionalText,
});
const signInFormParams = paramsObject({
  ...AUTHORIZATION,
  authenticity_token: optionalText,
  email: optionalText,
  password: optionalText,
});
const twoFactorFormParams = paramsObject({
  ...AUTHORIZATION,
  authenticity_token: optionalText,
  otp_attempt: optionalText,
});
const signOutFormParams = paramsObject({ authenticity_token: optionalText });
const PKCE_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;
// Between the password and the second factor: long enough to open the app, short enough to go stale.
const PENDING_SIGN_IN_SECONDS = 5 * 60;
const INVALID_CREDENTIALS = 'Invalid email or password.';
const INVALID_OTP = 'Invalid two-factor authentication code.';

/** An authorization request whose client, redirect URI, scopes and PKCE parameters all checked out. */
interface AuthorizationRequest {
  application: OAuthApplication;
  redirectUri: string;
  scopes: Scope[];
  state: string | undefined;
  codeChallenge: string | undefined;
  codeChallengeMethod: string | undefined;
  /** What the forms carry to the next step. */
  params: CarriedParams;
}

type Checked =
  | { kind: 'ok'; request: AuthorizationRequest }
  /** The client or redirect URI cannot be trusted: say so here, never redirect (RFC 6749 §4.1.2.1). */
  | { kind: 'page'; message: string }
  | { kind: 'redirect'; location: string; application: OAuthApplication; redirectUri: string };

function truthy(value: string | undefined): boolean {
  return value === 'true' || value === '1' || value === 'yes';
}

/** The redirect URI with the response parameters added to its query (RFC 6749 §4.1.2). */
function redirectWith(redirectUri: string, params: Record<string, string | undefined>): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(params))
    if (value !== undefined) url.searchParams.set(name, value);
  return url.toString();
}

/** Validates an authorization request in RFC 6749 order: client and redirect URI first, then the rest. */
async function checkRequest(oauth: OAuthService, source: AuthorizationParams): Promise<Checked> {
  const get = (name: keyof AuthorizationParams) => source[name];
  const clientId = get('client_id');
  const application = clientId ? await oauth.applicationByClientId(clientId) : null;
  if (!application) {
    return { kind: 'page', message: 'Client authentication failed due to unknown client.' };
  }
  const given = get('redirect_uri');
  // Without redirect_uri the only registered one is meant; with several, it must be named.
  const redirectUri =
    given ?? (application.redirectUris.length === 1 ? application.redirectUris[0] : undefined);
  if (redirectUri === undefined || !application.redirectUris.includes(redirectUri)) {
    return { kind: 'page', message: 'The redirect uri included is not valid.' };
  }
  const state = get('state');
  const fail = (error: string, description: string): Checked => {
    if (redirectUri === OOB_REDIRECT_URI) return { kind: 'page', message: description };
    return {
      kind: 'redirect',
      application,
      redirectUri,
      location: redirectWith(redirectUri, { error, error_description: description, state }),
    };
  };
  if (get('response_type') !== 'code') {
    return fail('unsupported_response_type', 'The authorization server does not support this response type.');
  }
  const scope = get('scope');
  const { scopes, unknown } =
    scope === undefined || scope.trim() === '' ? { scopes: DEFAULT_SCOPES, unknown: [] } : parseScopes(scope);
  if (unknown.length > 0 || scopes.length === 0 || !scopesWithin(scopes, application.scopes)) {
    return fail('invalid_scope', 'The requested scope is invalid, unknown, or malformed.');
  }
  const codeChallenge = get('code_challenge') || undefined;
  const codeChallengeMethod = get('code_challenge_method') || undefined;
  if (
    (codeChallengeMethod !== undefined && codeChallenge === undefined) ||
    (codeChallenge !== undefined && (codeChallengeMethod !== 'S256' || !PKCE_CHALLENGE.test(codeChallenge)))
  ) {
    return fail('invalid_request', 'Only the S256 code challenge method is supported.');
  }
  const params: CarriedParams = {};
  for (const name of CARRIED) {
    const value = get(name);
    if (value !== undefined) params[name] = value;
  }
  params.redirect_uri = redirectUri;
  return {
    kind: 'ok',
    request: { application, redirectUri, scopes, state, codeChallenge, codeChallengeMethod, params },
  };
}

/** CSP `form-action` source for a redirect URI: Chromium checks form-action on the redirect a form ends in. */
function formActionSource(redirectUri: string): string {
  if (redirectUri === OOB_REDIRECT_URI || !URL.canParse(redirectUri)) return '';
  const url = new URL(redirectUri);
  if (url.protocol === 'http:' || url.protocol === 'https:') return ` ${url.origin}`;
  return ` ${url.protocol}`;
}

/** The handlers of the sign-in pages, mounted by `src/oauth/authorize.ts` and `src/auth/sessions.ts`. */
export type SignInFlow = ReturnType<typeof signInFlow>;

/** The cookie holding a browser's sign-in session (`__Host-` under https). Other pages read it too. */
export function sessionCookieName(publicUrl: string): string {
  return publicUrl.startsWith('https:') ? '__Host-agora_session' : 'agora_session';
}

/**
 * The browser's way to an authorization code: GET/POST /oauth/authorize, the sign-in and two-factor
 * forms (/auth/sign_in, /auth/two_factor) and /auth/sign_out, which share cookies, CSRF tokens and
 * page framing. Server-rendered pages, CSRF-protected, framed by nobody.
 */
export function signInFlow(deps: AuthorizePagesDeps) {
  const secure = deps.publicUrl.startsWith('https:');
  const sessionCookie = sessionCookieName(deps.publicUrl);
  const csrfCookie = secure ? '__Host-agora_csrf' : 'agora_csrf';
  const pendingCookie = secure ? '__Host-agora_2fa' : 'agora_2fa';

  /** The per-browser secret the CSRF token is bound to (with the session): read, or set now. */
  function csrfSecret(req: Request, res: Response): string {
    const cookies = readCookies(req);
    const existing = cookies.get(csrfCookie);
    if (existing !== undefined && /^[A-Za-z0-9_-]{43}$/.test(existing)) return existing;
    const fresh = randomBytes(32).toString('base64url');
    setCookie(res, csrfCookie, fresh, { secure });
    // Later reads in this request see it too.
    req.headers.cookie = `${req.headers.cookie ? `${req.headers.cookie}; ` : ''}${csrfCookie}=${fresh}`;
    return fresh;
  }

  function csrfToken(req: Request, res: Response, sessionToken: string | undefined): string {
    return hmac(deps.keys.csrf, `${csrfSecret(req, res)}|${sessionToken ?? ''}`);
  }

  /** True when the form's token belongs to this browser and session. */
  function csrfValid(req: Request, given: string | undefined): boolean {
    const cookies = readCookies(req);
    const secret = cookies.get(csrfCookie);
    if (secret === undefined || given === undefined) return false;
    const expected = hmac(deps.keys.csrf, `${secret}|${cookies.get(sessionCookie) ?? ''}`);
    return sameString(given, expected);
  }

  function send(res: Response, status: number, html: string, nonce: string, redirectUri?: string): void {
    res
      .status(status)
      .set({
        'Content-Type': 'text/html; charset=utf-8',
        'Content-Security-Policy': `default-src 'none'; style-src 'nonce-${nonce}'; img-src 'self'; form-action 'self'${redirectUri ? formActionSource(redirectUri) : ''}; frame-ancestors 'none'; base-uri 'none'`,
        'X-Frame-Options': 'DENY',
        'X-Content-Type-Options': 'nosniff',
        'Referrer-Policy': 'no-referrer',
        'Cache-Control': 'no-store',
      })
      .send(html);
  }

  function frame(req: Request, res: Response, sessionToken: string | undefined): PageFrame {
    return {
      instanceTitle: deps.instanceTitle,
      nonce: randomBytes(16).toString('base64'),
      csrfToken: csrfToken(req, res, sessionToken),
    };
  }

  function message(res: Response, status: number, title: string, text: string): void {
    const nonce = randomBytes(16).toString('base64');
    send(res, status, messagePage({ instanceTitle: deps.instanceTitle, nonce }, title, text), nonce);
  }

  function redirect(res: Response, location: string): void {
    res.set('Cache-Control', 'no-store').redirect(302, location);
  }

  /** A page handler for a form post: refused with 403 unless it carries this browser's CSRF token. */
  function form<T extends z.ZodType<{ authenticity_token?: string | undefined }>>(
    schema: T,
    handler: (body: z.output<T>, req: Request, res: Response) => Promise<void>,
  ) {
    return page(async (req, res) => {
      const body = parseInput(schema, req.body ?? {});
      if (!csrfValid(req, body.authenticity_token)) {
        message(
          res,
          403,
          'Forbidden',
          'Invalid or missing authenticity token. Reload the page and try again.',
        );
        return;
      }
      await handler(body, req, res);
    });
  }

  /** Runs a page handler; failures become HTML pages (these are browser pages, not the JSON API). */
  function page(handler: (req: Request, res: Response) => Promise<void>) {
    return async (req: Request, res: Response) => {
      try {
        await handler(req, res);
      } catch (error) {
        if (error instanceof RateLimited) {
          const retry = error.retryAfterSeconds;
          if (retry !== undefined) res.set('Retry-After', String(retry));
          message(res, 429, 'Too many requests', 'Too many attempts. Please wait a while and try again.');
          return;
        }
        deps.logger.error({ err: error, method: req.method, path: req.path }, 'sign-in page failed');
        message(res, 500, 'Something went wrong', 'The server could not complete this request.');
      }
    };
  }

  /** The checked request, or the response already sent (error page or error redirect). */
  async function checked(
    res: Response,
    source: AuthorizationParams,
  ): Promise<AuthorizationRequest | undefined> {
    const result = await checkRequest(deps.oauth, source);
    if (result.kind === 'ok') return result.request;
    if (result.kind === 'redirect') redirect(res, result.location);
    else message(res, 400, 'An error has occurred', result.message);
    return undefined;
  }

  function showSignIn(
    req: Request,
    res: Response,
    request: AuthorizationRequest,
    status = 200,
    error?: string,
    email?: string,
  ): void {
    const f = frame(req, res, readCookies(req).get(sessionCookie));
    const html = signInPage(f, { params: request.params, application: request.application, error, email });
    send(res, status, html, f.nonce, request.redirectUri);
  }

  function showTwoFactor(
    req: Request,
    res: Response,
    request: AuthorizationRequest,
    status = 200,
    error?: string,
  ): void {
    const f = frame(req, res, readCookies(req).get(sessionCookie));
    send(res, status, twoFactorPage(f, { params: request.params, error }), f.nonce, request.redirectUri);
  }

  /** Issues the code and sends the browser back to the app (or shows the code, out-of-band). */
  async function grant(res: Response, request: AuthorizationRequest, userId: string): Promise<void> {
    const code = await deps.oauth.issueAuthorizationCode({
      application: request.application,
      userId,
      redirectUri: request.redirectUri,
      scopes: request.scopes,
      codeChallenge: request.codeChallenge ?? null,
      codeChallengeMethod: request.codeChallengeMethod ?? null,
    });
    if (request.redirectUri === OOB_REDIRECT_URI) {
      const nonce = randomBytes(16).toString('base64');
      send(res, 200, codePage({ instanceTitle: deps.instanceTitle, nonce }, code), nonce);
      return;
    }
    redirect(res, redirectWith(request.redirectUri, { code, state: request.state }));
  }

  /** Signs the browser in: a new session activation (replacing the one it had), then back to the request. */
  async function signIn(
    req: Request,
    res: Response,
    user: User,
    request: AuthorizationRequest,
  ): Promise<void> {
    const cookies = readCookies(req);
    await deps.sessions.deactivate(cookies.get(sessionCookie));
    const token = await deps.sessions.activate(user.id, {
      userAgent: req.headers['user-agent'] ?? '',
      ip: req.ip ?? null,
    });
    await deps.users.recordSignIn(user, req.ip ?? null);
    setCookie(res, sessionCookie, token, { secure });
    const back = new URLSearchParams(request.params);
    res.set('Cache-Control', 'no-store').redirect(303, `/oauth/authorize?${back.toString()}`);
  }

  async function currentSession(req: Request): Promise<SessionActivation | null> {
    return deps.sessions.lookup(readCookies(req).get(sessionCookie));
  }

  /** `userId.expiresAt.mac`: who passed the password step, for the second-factor form. */
  function pendingValue(userId: string): string {
    const payload = `${userId}.${Date.now() + PENDING_SIGN_IN_SECONDS * 1000}`;
    return `${payload}.${hmac(deps.keys.pendingSignIn, payload)}`;
  }

  function pendingUserId(req: Request): string | undefined {
    const value = readCookies(req).get(pendingCookie);
    const match = value === undefined ? null : /^(\d{1,19})\.(\d{1,15})\.([A-Za-z0-9_-]+)$/.exec(value);
    if (!match) return undefined;
    const [, userId, expires, mac] = match as unknown as [string, string, string, string];
    if (!sameString(mac, hmac(deps.keys.pendingSignIn, `${userId}.${expires}`))) return undefined;
    return Number(expires) > Date.now() ? userId : undefined;
  }

  async function enforceLoginLimits(req: Request, email: string): Promise<void> {
    await deps.limiter.enforce(loginLimitChecks(req.ip, email), { ip: req.ip });
  }

  /** GET /oauth/authorize: the sign-in page, or the approval page of a signed-in browser. */
  const authorizationPage = page(async (req, res) => {
    const query = parseInput(authorizeQuery, req.query);
    const request = await checked(res, query);
    if (!request) return;
    const session = truthy(query.force_login) ? null : await currentSession(req);
    if (!session) {
      showSignIn(req, res, request);
      return;
    }
    // The web frontend's own app never asks its users to approve it.
    if (request.application.superapp) {
      await grant(res, request, session.userId);
      return;
    }
    const user = await deps.users.findById(session.userId);
    const f = frame(req, res, readCookies(req).get(sessionCookie));
    const html = approvalPage(f, {
      params: request.params,
      application: request.application,
      scopes: request.scopes,
      email: user?.email ?? '',
    });
    send(res, 200, html, f.nonce, request.redirectUri);
  });

  /** POST /oauth/authorize: the browser's decision on the approval page. */
  const decision = form(decisionForm, async (body, req, res) => {
    const request = await checked(res, body);
    if (!request) return;
    const session = await currentSession(req);
    if (!session) {
      showSignIn(req, res, request, 401, 'Your session has ended. Please log in again.');
      return;
    }
    const decision = body.decision;
    if (decision === 'approve') {
      await grant(res, request, session.userId);
      return;
    }
    if (request.redirectUri === OOB_REDIRECT_URI) {
      message(res, 200, 'Authorization denied', 'You denied this application access to your account.');
      return;
    }
    redirect(
      res,
      redirectWith(request.redirectUri, {
        error: 'access_denied',
        error_description: 'The resource owner or authorization server denied the request.',
        state: request.state,
      }),
    );
  });

  /** POST /auth/sign_in: the password step (then the second factor, when the user has one). */
  const signInForm = form(signInFormParams, async (body, req, res) => {
    const request = await checked(res, body);
    if (!request) return;
    const email = (body.email ?? '').trim();
    const password = body.password ?? '';
    await enforceLoginLimits(req, email);
    let user: User;
    try {
      user = await deps.users.authenticate(email, password);
    } catch (error) {
      // Unknown e-mail, unconfirmed account and wrong password read the same.
      if (!isAppError(error) || error.status >= 500) throw error;
      showSignIn(req, res, request, 401, INVALID_CREDENTIALS, email);
      return;
    }
    if (await deps.twoFactor.isEnabled(user.id)) {
      setCookie(res, pendingCookie, pendingValue(user.id), { secure, maxAge: PENDING_SIGN_IN_SECONDS });
      showTwoFactor(req, res, request);
      return;
    }
    await signIn(req, res, user, request);
  });

  /** POST /auth/two_factor: the second factor of a sign-in that passed the password step. */
  const twoFactorForm = form(twoFactorFormParams, async (body, req, res) => {
    const request = await checked(res, body);
    if (!request) return;
    const userId = pendingUserId(req);
    const user = userId === undefined ? null : await deps.users.findById(userId);
    if (!user) {
      showSignIn(req, res, request, 401, 'Your sign-in has expired. Please log in again.');
      return;
    }
    await enforceLoginLimits(req, user.email);
    if (!(await deps.twoFactor.verify(user.id, body.otp_attempt ?? ''))) {
      showTwoFactor(req, res, request, 401, INVALID_OTP);
      return;
    }
    setCookie(res, pendingCookie, '', { secure, maxAge: 0 });
    await signIn(req, res, user, request);
  });

  /** POST /auth/sign_out: ends the browser's session. */
  const signOutForm = form(signOutFormParams, async (_body, req, res) => {
    await deps.sessions.deactivate(readCookies(req).get(sessionCookie));
    setCookie(res, sessionCookie, '', { secure, maxAge: 0 });
    const nonce = randomBytes(16).toString('base64');
    send(res, 200, signedOutPage({ instanceTitle: deps.instanceTitle, nonce }), nonce);
  });

  return { authorizationPage, decision, signInForm, twoFactorForm, signOutForm };
}
