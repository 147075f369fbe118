import { Router } from 'express';
import { GRANULAR_SCOPES, TOP_LEVEL_SCOPES } from '@agora/auth';
import { methodNotAllowed } from '../http/errors.js';
import type { OAuthService } from '../modules/oauth/oauth.service.js';

/** GET /.well-known/oauth-authorization-server: the RFC 8414 metadata document. */
export function oauthMetadataRouter(oauth: OAuthService, publicUrl: string): Router {
  const router = Router();
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
