import { Router, type Request, type RequestHandler } from 'express';
import { GRANULAR_SCOPES, TOP_LEVEL_SCOPES, type RateLimiter } from '@agora/auth';
import { serializeToken } from '../../entities/token.js';
import { methodNotAllowed } from '../../http/errors.js';
import { loginLimitChecks } from './login-limits.js';
import { multipartFields } from './multipart-fields.js';
import { OAuthError } from './oauth-error.js';
import type { ClientCredentials, OAuthService } from './oauth.service.js';

/** One string parameter of a token request body; repeated or nested values are malformed. */
function param(req: Request, name: string): string | undefined {
  const value = (req.body as Record<string, unknown> | undefined)?.[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new OAuthError('invalid_request', `Invalid parameter: ${name}.`);
  return value;
}

/** Client credentials from HTTP Basic (RFC 6749 §2.3.1) or the body; using both is refused. */
function clientCredentials(req: Request): ClientCredentials {
  const header = req.headers.authorization;
  const basic = header === undefined ? null : /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
  if (header !== undefined && !basic) {
    throw new OAuthError(
      'invalid_client',
      'Client authentication failed: unsupported authentication method.',
    );
  }
  const bodyId = param(req, 'client_id');
  const bodySecret = param(req, 'client_secret');
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

/** POST /oauth/token, POST /oauth/revoke and the RFC 8414 metadata document. */
export function oauthRouter(
  oauth: OAuthService,
  limiter: RateLimiter,
  publicUrl: string,
  bodyLimitBytes: number,
): Router {
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
    .post(noStore, ...multipart, async (req, res) => {
      const grantType = param(req, 'grant_type');
      if (grantType === 'password') {
        // A password guess is a login: the reference's login throttles (per IP and per e-mail) apply.
        await limiter.enforce(loginLimitChecks(req.ip, param(req, 'username')), { ip: req.ip });
      }
      const token = await oauth.token({
        ...clientCredentials(req),
        grantType,
        scope: param(req, 'scope'),
        code: param(req, 'code'),
        redirectUri: param(req, 'redirect_uri'),
        codeVerifier: param(req, 'code_verifier'),
        username: param(req, 'username'),
        password: param(req, 'password'),
      });
      res.json(serializeToken(token));
    })
    .all(methodNotAllowed(['POST']));

  router
    .route('/oauth/revoke')
    .post(noStore, ...multipart, async (req, res) => {
      await oauth.revoke(clientCredentials(req), param(req, 'token'));
      res.json({});
    })
    .all(methodNotAllowed(['POST']));

  router
    .route('/.well-known/oauth-authorization-server')
    .get((_req, res) => {
      res.json({
        issuer: `${publicUrl}/`,
        authorization_endpoint: `${publicUrl}/oauth/authorize`,
        token_endpoint: `${publicUrl}/oauth/token`,
        revocation_endpoint: `${publicUrl}/oauth/revoke`,
        app_registration_endpoint: `${publicUrl}/api/v1/apps`,
        scopes_supported: [...TOP_LEVEL_SCOPES, ...GRANULAR_SCOPES],
        response_types_supported: ['code'],
        grant_types_supported: [
          'authorization_code',
          'client_credentials',
          ...(oauth.passwordGrantEnabled ? ['password'] : []),
        ],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
      });
    })
    .all(methodNotAllowed(['GET']));
  return router;
}
