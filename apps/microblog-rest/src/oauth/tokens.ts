import { Router, type Request, type RequestHandler } from 'express';
import { z } from 'zod';
import type { RateLimiter } from '@agora/auth';
import { serializeToken } from '../entities/token.js';
import { methodNotAllowed } from '../http/errors.js';
import { issueField, paramsObject, validated } from '../http/request-schema.js';
import { loginLimitChecks } from '../modules/oauth/login-limits.js';
import { multipartFields } from '../http/multipart-fields.js';
import { OAuthError } from '../modules/oauth/oauth-error.js';
import type { ClientCredentials, OAuthService } from '../modules/oauth/oauth.service.js';

/** One string parameter of a token request body; repeated or nested values are malformed. */
const param = z
  .string()
  .nullish()
  .transform((value) => value ?? undefined)
  .optional();

/** The client's own parameters, in the body when it does not use HTTP Basic. */
const clientParams = { client_id: param, client_secret: param };

const tokenParams = paramsObject({
  grant_type: param,
  ...clientParams,
  scope: param,
  code: param,
  redirect_uri: param,
  code_verifier: param,
  username: param,
  password: param,
});

const revokeParams = paramsObject({ ...clientParams, token: param });

/** A schema failure in OAuth's own format (RFC 6749 §5.2), naming the first bad parameter. */
const invalidParameter = (error: z.ZodError) =>
  new OAuthError('invalid_request', `Invalid parameter: ${issueField(error.issues[0]?.path ?? [])}.`);

/** Client credentials from HTTP Basic (RFC 6749 §2.3.1) or the body; using both is refused. */
function clientCredentials(
  req: Request,
  body: { client_id?: string | undefined; client_secret?: string | undefined },
): ClientCredentials {
  const header = req.headers.authorization;
  const basic = header === undefined ? null : /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
  if (header !== undefined && !basic) {
    throw new OAuthError(
      'invalid_client',
      'Client authentication failed: unsupported authentication method.',
    );
  }
  const bodyId = body.client_id;
  const bodySecret = body.client_secret;
  if (!basic) return { clientId: bodyId, clientSecret: bodySecret };
  if (bodySecret !== undefined) {
    throw new OAuthError('invalid_request', 'Use one client authentication method, not several.');
  }
  const decoded = Buffer.from(basic[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0)
    throw new OAuthError('invalid_client', 'Client authentication failed: malformed credentials.');
  const decode = (part: string) => {
    try {
      return decodeURIComponent(part.replace(/\+/g, ' '));
    } catch {
      throw new OAuthError('invalid_client', 'Client authentication failed: malformed credentials.');
    }
  };
  const clientId = decode(decoded.slice(0, colon));
  if (bodyId !== undefined && bodyId !== clientId) {
    throw new OAuthError(
      'invalid_request',
      'client_id in the body does not match the one in the Authorization header.',
    );
  }
  return { clientId, clientSecret: decode(decoded.slice(colon + 1)) };
}

/** POST /oauth/token and POST /oauth/revoke (Mastodon's Oauth::TokensController). */
export function oauthTokensRouter(oauth: OAuthService, limiter: RateLimiter, bodyLimitBytes: number): Router {
  const router = Router();
  const multipart = multipartFields(bodyLimitBytes);
  // RFC 6749 §5.1: token responses must not be cached.
  const noStore: RequestHandler = (_req, res, next) => {
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Pragma', 'no-cache');
    next();
  };

  router
    .route('/oauth/token')
    .post(
      noStore,
      ...multipart,
      validated(
        { body: tokenParams },
        async ({ body }, res, req) => {
          if (body.grant_type === 'password') {
            // A password guess is a login: the reference's login throttles (per IP and per e-mail) apply.
            await limiter.enforce(loginLimitChecks(req.ip, body.username), { ip: req.ip });
          }
          const token = await oauth.token({
            ...clientCredentials(req, body),
            grantType: body.grant_type,
            scope: body.scope,
            code: body.code,
            redirectUri: body.redirect_uri,
            codeVerifier: body.code_verifier,
            username: body.username,
            password: body.password,
          });
          res.json(serializeToken(token));
        },
        invalidParameter,
      ),
    )
    .all(methodNotAllowed(['POST']));

  router
    .route('/oauth/revoke')
    .post(
      noStore,
      ...multipart,
      validated(
        { body: revokeParams },
        async ({ body }, res, req) => {
          await oauth.revoke(clientCredentials(req, body), body.token);
          res.json({});
        },
        invalidParameter,
      ),
    )
    .all(methodNotAllowed(['POST']));

  return router;
}
