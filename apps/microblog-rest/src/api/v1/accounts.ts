import { Router } from 'express';
import { z } from 'zod';
import type { RateLimiter } from '@agora/auth';
import type { MediaLimits } from '@agora/media';
import { serializeAccount, serializeCredentialAccount } from '../../entities/account.js';
import { serializeToken } from '../../entities/token.js';
import { signUpRateLimit } from '../../http/api-rate-limit.js';
import { methodNotAllowed } from '../../http/errors.js';
import type { HotRead } from '../../http/hot-reads.js';
import { optionalText, paramsObject, pathParam, validated } from '../../http/request-schema.js';
import { credentialsParams, registrationParams } from '../../modules/accounts/account-params.js';
import type { AccountService } from '../../modules/accounts/account.service.js';
import { profileImagesParser, uploadsOf } from '../../modules/media/index.js';
import { authOf, userIdOf, type BearerGuards } from '../../modules/oauth/bearer.js';
import { multipartFields } from '../../http/multipart-fields.js';

export interface AccountsRouterDeps {
  accounts: AccountService;
  guards: BearerGuards;
  limiter: RateLimiter;
  publicUrl: string;
  bodyLimitBytes: number;
  /** Limits of avatar/header uploads and where they are written while the request runs. */
  uploads: { limits: MediaLimits; dir: string };
}

const byId = { params: z.object({ id: pathParam }) };

/**
 * Mastodon's /api/v1/accounts: sign-up with an app token, the owner's credentials, lookup by acct,
 * and any account by id (public).
 */
export function accountsRouter(deps: AccountsRouterDeps): Router {
  const { accounts, guards, publicUrl } = deps;
  const router = Router();
  const multipart = multipartFields(deps.bodyLimitBytes);

  router
    .route('/api/v1/accounts')
    .post(
      signUpRateLimit(deps.limiter),
      ...multipart,
      guards.requireScopes('write:accounts'),
      validated({ body: registrationParams }, async ({ body }, res) => {
        const { application } = authOf(res);
        const { token } = await accounts.register(body, application);
        res.json(serializeToken(token));
      }),
    )
    .all(methodNotAllowed(['POST']));

  router
    .route('/api/v1/accounts/update_credentials')
    .patch(
      guards.requireUser('write:accounts'),
      profileImagesParser(deps.uploads.limits, deps.uploads.dir),
      validated({ body: credentialsParams }, async ({ body }, res) => {
        const { avatar, header } = uploadsOf(res);
        const patch = { ...body, ...(avatar ? { avatar } : {}), ...(header ? { header } : {}) };
        const view = await accounts.updateCredentials(userIdOf(res), patch);
        res.json(serializeCredentialAccount(view, publicUrl));
      }),
    )
    .all(methodNotAllowed(['PATCH']));

  router
    .route('/api/v1/accounts/lookup')
    .get(
      validated({ query: paramsObject({ acct: optionalText }) }, async ({ query }, res) => {
        res.json(serializeAccount(await accounts.lookup(query.acct), publicUrl));
      }),
    )
    .all(methodNotAllowed(['GET']));

  router
    .route('/api/v1/accounts/:id')
    .get(
      validated(byId, async ({ params }, res) => {
        res.json(serializeAccount(await accounts.findById(params.id), publicUrl));
      }),
    )
    .all(methodNotAllowed(['GET']));

  return router;
}

/** GET /api/v1/accounts/verify_credentials: the token's own account with its `source`. */
export function verifyAccountCredentials(accounts: AccountService, publicUrl: string): HotRead {
  return {
    path: '/api/v1/accounts/verify_credentials',
    scopes: ['read:accounts', 'profile'],
    user: true,
    async render(auth) {
      // The guard refused app tokens, so the token has a user.
      const view = await accounts.credentials(auth.userId!);
      return serializeCredentialAccount(view, publicUrl);
    },
  };
}
