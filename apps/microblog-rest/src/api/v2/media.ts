import { Router } from 'express';
import { serializeMediaAttachment } from '../../entities/media-attachment.js';
import { methodNotAllowed } from '../../http/errors.js';
import { validated } from '../../http/request-schema.js';
import {
  mediaTextParams,
  mediaUpload,
  mediaUploadParser,
  mediaUploadRateLimit,
} from '../../modules/media/index.js';
import { userIdOf } from '../../modules/oauth/bearer.js';
import type { MediaRouterDeps } from '../v1/media.js';

/**
 * Mastodon's POST /api/v2/media: images are processed at once (200 with `url`), video and audio in
 * the background (202 with `url: null`; clients poll GET /api/v1/media/:id).
 */
export function mediaV2Router(deps: MediaRouterDeps): Router {
  const { media, accounts, guards } = deps;
  const router = Router();
  router
    .route('/api/v2/media')
    .post(
      guards.requireUser('write:media'),
      mediaUploadRateLimit(deps.limiter),
      mediaUploadParser(deps.limits, deps.incomingDir),
      validated({ body: mediaTextParams }, async ({ body }, res) => {
        const account = await accounts.activeAccount(userIdOf(res));
        const created = await media.create(account.id, mediaUpload(body, res), { background: true });
        res
          .status(created.processing === 'complete' ? 200 : 202)
          .json(serializeMediaAttachment(created, (key) => media.urlOf(key)));
      }),
    )
    .all(methodNotAllowed(['POST']));
  return router;
}
