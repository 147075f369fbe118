import express, { type Router } from 'express';
import type { PushHub } from './push-hub.service.js';

// Form posts of a handful of URLs and a secret; anything bigger is not a PuSH request.
const MAX_FORM_BYTES = 16 * 1024;

/**
 * `POST <path>` (Mastodon: `/api/push`), the hub endpoint. Form-encoded `hub.*` fields (query
 * parameters are read too, as Rails did); answers an empty 202, or 422/403 with a plain-text reason.
 */
export function createPushHubRouter(hub: PushHub, path = '/api/push'): Router {
  const router = express.Router();
  router.post(path, express.urlencoded({ extended: false, limit: MAX_FORM_BYTES }), (req, res, next) => {
    const form = (req.body ?? {}) as Record<string, unknown>;
    const input = { ...(req.query as Record<string, unknown>), ...form };
    hub
      .request(input)
      .then((answer) => {
        res.status(answer.status);
        if (answer.body === '') res.end();
        else res.type('text/plain').send(answer.body);
      })
      .catch(next);
  });
  return router;
}
