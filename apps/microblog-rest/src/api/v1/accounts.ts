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
import { serializeRelationship } from '../../entities/relationship.js';
import { pageParams, setLinkHeader } from '../../http/link-pagination.js';
import { lookupBearer } from '../../modules/oauth/bearer.js';
import type { OAuthService } from '../../modules/oauth/oauth.service.js';
import {
  accountSearchQuery,
  followParams,
  idsQuery,
  muteParams,
  type Relationship,
  type RelationshipService,
} from '../../modules/relationships/index.js';

export interface AccountsRouterDeps {
  accounts: AccountService;
  relationships: RelationshipService;
  /** For the public lists, which read a token when one is sent (blocks hide them). */
  oauth: OAuthService;
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
  const { accounts, relationships, guards, publicUrl } = deps;
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
    .route('/api/v1/accounts/relationships')
    .get(
      guards.requireUser('read:follows'),
      validated({ query: idsQuery }, async ({ query }, res) => {
        const found = await relationships.relationships(userIdOf(res), query);
        res.json(found.map(serializeRelationship));
      }),
    )
    .all(methodNotAllowed(['GET']));

  router
    .route('/api/v1/accounts/familiar_followers')
    .get(
      guards.requireUser('read:follows'),
      validated({ query: idsQuery }, async ({ query }, res) => {
        const found = await relationships.familiarFollowers(userIdOf(res), query);
        res.json(
          found.map((entry) => ({
            id: entry.id,
            accounts: entry.accounts.map((view) => serializeAccount(view, publicUrl)),
          })),
        );
      }),
    )
    .all(methodNotAllowed(['GET']));

  router
    .route('/api/v1/accounts/search')
    .get(
      guards.requireUser('read:accounts'),
      validated({ query: accountSearchQuery }, async ({ query }, res) => {
        const found = await relationships.search(userIdOf(res), {
          q: query.q ?? '',
          limit: query.limit ?? 40,
          offset: query.offset ?? 0,
          resolve: query.resolve ?? false,
          following: query.following ?? false,
        });
        res.json(found.map((view) => serializeAccount(view, publicUrl)));
      }),
    )
    .all(methodNotAllowed(['GET']));

  // Followers and following are public (Mastodon 4.0); a token, when sent, lets blocks apply.
  for (const direction of ['followers', 'following'] as const) {
    router
      .route(`/api/v1/accounts/:id/${direction}`)
      .get(
        validated({ ...byId, query: pageParams() }, async ({ params, query }, res, req) => {
          const auth = await lookupBearer(req, res, deps.oauth);
          const page = await relationships.followList(direction, params.id, query, auth?.userId ?? null);
          setLinkHeader(req, res, publicUrl, page, query.limit);
          res.json(page.items.map((view) => serializeAccount(view, publicUrl)));
        }),
      )
      .all(methodNotAllowed(['GET']));
  }

  // Featured hashtags and endorsed accounts are not kept: empty lists, which clients call on profiles.
  for (const list of ['featured_tags', 'endorsements'] as const) {
    router
      .route(`/api/v1/accounts/:id/${list}`)
      .get(
        validated(byId, async ({ params }, res) => {
          await accounts.findById(params.id);
          res.json([]);
        }),
      )
      .all(methodNotAllowed(['GET']));
  }

  // POST /api/v1/accounts/:id/<action>: each answers the Relationship after the change.
  const relationshipWrite = <B extends z.ZodType>(
    action: string,
    scope: 'write:follows' | 'write:blocks' | 'write:mutes',
    body: B,
    run: (userId: string, id: string, parsed: z.output<B>) => Promise<Relationship>,
  ) =>
    router
      .route(`/api/v1/accounts/:id/${action}`)
      .post(
        guards.requireUser(scope),
        validated({ ...byId, body }, async ({ params, body: parsed }, res) => {
          res.json(serializeRelationship(await run(userIdOf(res), params.id, parsed as z.output<B>)));
        }),
      )
      .all(methodNotAllowed(['POST']));
  const noBody = z.unknown();
  relationshipWrite('follow', 'write:follows', followParams, (user, id, choices) =>
    relationships.follow(user, id, choices),
  );
  relationshipWrite('unfollow', 'write:follows', noBody, (user, id) => relationships.unfollow(user, id));
  relationshipWrite('remove_from_followers', 'write:follows', noBody, (user, id) =>
    relationships.removeFromFollowers(user, id),
  );
  relationshipWrite('block', 'write:blocks', noBody, (user, id) => relationships.block(user, id));
  relationshipWrite('unblock', 'write:blocks', noBody, (user, id) => relationships.unblock(user, id));
  relationshipWrite('mute', 'write:mutes', muteParams, (user, id, choices) =>
    relationships.mute(user, id, choices),
  );
  relationshipWrite('unmute', 'write:mutes', noBody, (user, id) => relationships.unmute(user, id));

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
