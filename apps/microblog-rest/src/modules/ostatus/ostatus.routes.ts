import express, { Router, type NextFunction, type Request, type Response } from 'express';
import { createPushSubscriberRouter } from '@agora/federation';
import { ATOM_TYPE } from './atom.js';
import { MAGIC_ENVELOPE_TYPE, MAX_ENVELOPE_BYTES } from './magic-envelope.js';
import type { OStatusService } from './ostatus.service.js';

/**
 * The early federation's URLs (spec microblog/not-shown.md §4.1): the account feed
 * `GET /users/:name.atom` (`max_id` pages) and the Salmon endpoint `POST /api/salmon/:accountId`
 * (201 when taken), and the PuSH callback `/api/subscriptions/:id` where the hubs of followed
 * OStatus-only accounts verify intent and push their entries. Mounted before the actor documents,
 * whose `/users/:name` would match the feed.
 */
export function ostatusRouter(ostatus: OStatusService): Router {
  const router = Router();
  const handle =
    (run: (req: Request, res: Response) => Promise<void>) =>
    (req: Request, res: Response, next: NextFunction) => {
      run(req, res).catch(next);
    };

  router.get(
    /^\/users\/([^/]+)\.atom$/,
    handle(async (req, res) => {
      const name = decodeURIComponent(String((req.params as Record<string, string>)[0]));
      const maxId = typeof req.query.max_id === 'string' && req.query.max_id !== '' ? req.query.max_id : null;
      const feed = await ostatus.feed(name, maxId);
      if (feed === null) return void res.status(404).json({ error: 'Record not found' });
      res.status(200).type(`${ATOM_TYPE}; charset=utf-8`).send(feed);
    }),
  );

  router.post(
    '/api/salmon/:accountId',
    // The era's peers sent the envelope as magic-envelope+xml, some as plain XML.
    express.text({
      type: [MAGIC_ENVELOPE_TYPE, 'application/xml', 'text/xml', 'application/atom+xml'],
      limit: MAX_ENVELOPE_BYTES,
    }),
    handle(async (req, res) => {
      const body = typeof req.body === 'string' ? req.body : '';
      if (body === '') return void res.status(400).json({ error: 'Expected a magic envelope' });
      await ostatus.salmon(String(req.params.accountId), body);
      res.status(201).json({});
    }),
  );
  router.use(createPushSubscriberRouter(ostatus.subscriber));
  return router;
}
