import { Router } from 'express';
import { z } from 'zod';
import type { RateLimiter } from '@agora/auth';
import { BadInput } from '@agora/core';
import type { MediaLimits } from '@agora/media';
import { serializeMediaAttachment } from '../../entities/media-attachment.js';
import { methodNotAllowed } from '../../http/errors.js';
import { pathParam, validated } from '../../http/request-schema.js';
import type { AccountService } from '../../modules/accounts/account.service.js';
import {
  mediaPatch,
  mediaTextParams,
  mediaUpload,
  mediaUploadParser,
  mediaUploadRateLimit,
  PROCESSING_FAILED,
  type MediaAttachmentService,
} from '../../modules/media/index.js';
import { userIdOf, type BearerGuards } from '../../modules/oauth/bearer.js';

export interface MediaRouterDeps {
  media: MediaAttachmentService;
  accounts: AccountService;
  guards: BearerGuards;
  limiter: RateLimiter;
  limits: MediaLimits;
  /** Where uploads are written while the request runs. */
  incomingDir: string;
}

const byId = { params: z.object({ id: pathParam }) };

/**
 * Mastodon's /api/v1/media: a synchronous upload (200 once stored), and the owner's unattached
 * uploads by id: GET (206 while processing), PUT (description, focus, thumbnail), DELETE.
 */
export function mediaV1Router(deps: MediaRouterDeps): Router {
  const { media, accounts, guards } = deps;
  const router = Router();
  const upload = [mediaUploadRateLimit(deps.limiter), mediaUploadParser(deps.limits, deps.incomingDir)];
  const urlOf = (key: string) => media.urlOf(key);

  router
    .route('/api/v1/media')
    .post(
      guards.requireUser('write:media'),
      ...upload,
      validated({ body: mediaTextParams }, async ({ body }, res) => {
        const account = await accounts.activeAccount(userIdOf(res));
        const created = await media.create(account.id, mediaUpload(body, res), { background: false });
        res.json(serializeMediaAttachment(created, urlOf));
      }),
    )
    .all(methodNotAllowed(['POST']));

  router
    .route('/api/v1/media/:id')
    .get(
      guards.requireUser('write:media', 'read'),
      validated(byId, async ({ params }, res) => {
        const account = await accounts.activeAccount(userIdOf(res));
        const found = await media.findOwn(account.id, params.id);
        if (found.processing === 'failed') throw new BadInput(PROCESSING_FAILED);
        res.status(found.processing === 'complete' ? 200 : 206).json(serializeMediaAttachment(found, urlOf));
      }),
    )
    .put(
      guards.requireUser('write:media'),
      mediaUploadParser(deps.limits, deps.incomingDir),
      validated({ ...byId, body: mediaTextParams }, async ({ params, body }, res) => {
        const account = await accounts.activeAccount(userIdOf(res));
        const updated = await media.update(account.id, params.id, mediaPatch(body, res));
        res
          .status(updated.processing === 'complete' ? 200 : 206)
          .json(serializeMediaAttachment(updated, urlOf));
      }),
    )
    .delete(
      guards.requireUser('write:media'),
      validated(byId, async ({ params }, res) => {
        const account = await accounts.activeAccount(userIdOf(res));
        await media.remove(account.id, params.id);
        res.json({});
      }),
    )
    .all(methodNotAllowed(['GET', 'PUT', 'DELETE']));

  return router;
}
