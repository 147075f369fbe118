import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import type { PushCallbackAnswer, PushSubscriber } from './push-subscriber.service.js';

// One-entry feeds are small; Mastodon's own payloads stayed far below this.
const MAX_CONTENT_BYTES = 1024 * 1024;

/**
 * The callback a hub talks to (Mastodon: `/api/subscriptions/:id`): `GET` is the verification of
 * intent, `POST` delivers content signed with our secret. `path` must contain `:id`.
 */
export function createPushSubscriberRouter(
  subscriber: PushSubscriber,
  path = '/api/subscriptions/:id',
): Router {
  if (!path.includes(':id')) throw new Error('The PuSH callback path needs an :id parameter');
  const router = express.Router();

  router.get(path, (req: Request<{ id: string }>, res, next) => {
    subscriber
      .confirm(req.params.id, req.query as Record<string, unknown>)
      .then((answer) => send(res, answer))
      .catch(next);
  });

  router.post(
    path,
    express.raw({ type: () => true, limit: MAX_CONTENT_BYTES }),
    (req: Request<{ id: string }>, res, next) => {
      const body = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      subscriber
        .receive(req.params.id, body, {
          signature: req.get('x-hub-signature'),
          contentType: req.get('content-type'),
        })
        .then((answer) => send(res, answer))
        .catch(next);
    },
  );

  router.use(
    path,
    (error: { type?: string; status?: number }, _req: Request, res: Response, next: NextFunction) => {
      if (error.type === 'entity.too.large')
        return void res.status(413).type('text/plain').send('Payload too large');
      next(error);
    },
  );
  return router;
}

function send(res: Response, answer: PushCallbackAnswer): void {
  res.status(answer.status);
  if (answer.body === undefined) res.end();
  else res.type('text/plain').send(answer.body);
}
