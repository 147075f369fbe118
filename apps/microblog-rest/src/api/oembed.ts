import { Router } from 'express';
import { z } from 'zod';
import { NotFound } from '@agora/core';
import { validated } from '../http/request-schema.js';
import { oembedOf, statusOfUrl } from '../modules/preview-cards/oembed.js';
import type { StatusService } from '../modules/statuses/status.service.js';

const NOT_FOUND = 'Record not found';

const query = z.object({
  url: z.string().max(2048),
  maxwidth: z.coerce.number().int().positive().optional(),
  maxheight: z.coerce.number().int().positive().optional(),
  format: z.string().optional(),
});

/**
 * GET /api/oembed?url=: Mastodon's oEmbed provider for our own public and unlisted statuses; any
 * other URL (another host, a private status, a deleted one) is a 404.
 */
export function oembedRouter(deps: {
  statuses: StatusService;
  publicUrl: string;
  providerName: string;
}): Router {
  const router = Router();
  router.get(
    '/api/oembed',
    validated({ query }, async ({ query }, res) => {
      if (query.format !== undefined && query.format !== 'json') throw new NotFound(NOT_FOUND);
      const named = statusOfUrl(query.url, deps.publicUrl);
      if (!named) throw new NotFound(NOT_FOUND);
      const view = await deps.statuses.visibleView(named.id, null);
      const {
        row,
        account: { actor },
      } = view;
      if (
        !row.local ||
        row.reblogOfId !== null ||
        actor.username.toLowerCase() !== named.username.toLowerCase()
      )
        throw new NotFound(NOT_FOUND);
      res.json(
        oembedOf(view, {
          publicUrl: deps.publicUrl,
          providerName: deps.providerName,
          maxWidth: query.maxwidth,
        }),
      );
    }),
  );
  return router;
}
