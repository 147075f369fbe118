import { Router } from 'express';
import { z } from 'zod';
import { serializeApplication, serializeCredentialApplication } from '../../entities/application.js';
import { methodNotAllowed } from '../../http/errors.js';
import type { HotRead } from '../../http/hot-reads.js';
import { paramsObject, validated } from '../../http/request-schema.js';
import { multipartFields } from '../../http/multipart-fields.js';
import type { OAuthService } from '../../modules/oauth/oauth.service.js';

/** POST /api/v1/apps: the service checks each value and names every problem in one 422. */
const registrationParams = paramsObject({
  client_name: z.unknown().optional(),
  redirect_uris: z.unknown().optional(),
  scopes: z.unknown().optional(),
  website: z.unknown().optional(),
});

/**
 * POST /api/v1/apps (public) and GET /api/v1/apps/verify_credentials (any valid token); `vapidKey`
 * is Web Push's public key, shown as the deprecated `vapid_key`.
 */
export function appsRouter(oauth: OAuthService, bodyLimitBytes: number, vapidKey: string): Router {
  const router = Router();
  router
    .route('/api/v1/apps')
    .post(
      ...multipartFields(bodyLimitBytes),
      validated({ body: registrationParams }, async ({ body }, res) => {
        const { application, clientSecret } = await oauth.registerApplication({
          clientName: body.client_name,
          redirectUris: body.redirect_uris,
          scopes: body.scopes,
          website: body.website,
        });
        res.status(200).json(serializeCredentialApplication(application, clientSecret, vapidKey));
      }),
    )
    .all(methodNotAllowed(['POST']));
  return router;
}

/** GET /api/v1/apps/verify_credentials: the token's application, for any valid token. */
export function verifyAppCredentials(vapidKey: string): HotRead {
  return {
    path: '/api/v1/apps/verify_credentials',
    scopes: [],
    user: false,
    render: (auth) => serializeApplication(auth.application, vapidKey),
  };
}
