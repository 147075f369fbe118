import { Router, type NextFunction, type Request, type Response } from 'express';
import { wantsActivityPub, type Actor } from '@agora/federation';
import type { AppContext } from '../context.js';
import type { ServedObject } from './events.federation.js';
import { sendServedObject } from './object-routes.js';

type Find = (param: string, reader: Actor | null) => Promise<ServedObject | null | 'pass'>;

/**
 * A group's object URLs for ActivityPub clients (not-shown.md §5): `/p/:slug`, `/@:name/c/:slug`,
 * `/resource/:uuid`, `/todo-list/:uuid`, `/todo/:uuid` and the discussion messages among
 * `/comments/:uuid` (event comments fall through to the events' router, mounted after this one).
 * Other clients fall through to what else serves the path.
 */
export function groupContentObjectsRouter(ctx: AppContext): Router {
  const router = Router();
  const documents = ctx.groupContentFederation.documents;
  const serve =
    (param: string, find: Find) =>
    (req: Request, res: Response, next: NextFunction): void => {
      res.vary('Accept');
      if (!wantsActivityPub(req.get('accept'))) return next();
      void (async () => {
        const reader = await documents.reader({
          method: req.method,
          url: req.originalUrl,
          headers: req.headers,
        });
        const found = await find(String(req.params[param]), reader);
        if (found === 'pass') return next();
        sendServedObject(res, found);
      })().catch(next);
    };
  router.get(
    '/p/:slug',
    serve('slug', (slug, reader) => documents.post(slug, reader)),
  );
  router.get(
    '/@:name/c/:slug',
    serve('slug', (slug, reader) => documents.discussion(slug, reader)),
  );
  router.get(
    '/comments/:uuid',
    serve('uuid', (uuid, reader) => documents.message(uuid, reader)),
  );
  router.get(
    '/resource/:uuid',
    serve('uuid', (uuid, reader) => documents.resource(uuid, reader)),
  );
  router.get(
    '/todo-list/:uuid',
    serve('uuid', (uuid, reader) => documents.todoList(uuid, reader)),
  );
  router.get(
    '/todo/:uuid',
    serve('uuid', (uuid, reader) => documents.todo(uuid, reader)),
  );
  return router;
}
