import { Router, type Request, type Response, type NextFunction } from 'express';
import { escapeHtml, HOME_PAGE_HEADERS } from '@agora/core';
import { ACTIVITY_JSON_UTF8, wantsActivityPub } from '@agora/federation';
import type { AppContext } from '../context.js';
import type { ServedObject } from './events.federation.js';

/**
 * `/events/:uuid` and `/comments/:uuid` (not-shown.md §5, object URLs): ActivityPub clients (activity+json,
 * or ld+json with the ActivityStreams profile) get the object, remote objects redirect to their origin,
 * and anything else not served falls through to the app's 404. Browsers get a minimal page of the event.
 */
export function eventObjectsRouter(ctx: AppContext): Router {
  const router = Router();
  const serve =
    (find: (uuid: string) => Promise<ServedObject | null>, page?: (uuid: string) => Promise<string | null>) =>
    (req: Request, res: Response, next: NextFunction) => {
      res.vary('Accept');
      const uuid = String(req.params.uuid);
      void (async () => {
        if (!wantsActivityPub(req.get('accept'))) {
          const html = page ? await page(uuid) : null;
          if (html === null) return next();
          return void res.set(HOME_PAGE_HEADERS).send(html);
        }
        sendServedObject(res, await find(uuid));
      })().catch(next);
    };
  router.get(
    '/events/:uuid',
    serve(
      (uuid) => ctx.eventFederation.eventDocument(uuid),
      (uuid) => eventPage(ctx, uuid),
    ),
  );
  router.get(
    '/comments/:uuid',
    serve((uuid) => ctx.eventFederation.commentDocument(uuid)),
  );
  return router;
}

/** A minimal page for a browser: the event's title, time and text, for events anyone may see. */
async function eventPage(ctx: AppContext, uuid: string): Promise<string | null> {
  const served = await ctx.eventFederation.eventDocument(uuid);
  if (!served || 'redirect' in served) return null;
  const event = served.document;
  const title = escapeHtml(String(event.name ?? ''));
  const instance = escapeHtml(ctx.instanceConfig.settings().instanceName);
  return `<!doctype html>
<html lang="${escapeHtml(String(event.inLanguage ?? 'und'))}">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · ${instance}</title>
<link rel="alternate" type="application/activity+json" href="${escapeHtml(String(event.id))}"></head>
<body><main><h1>${title}</h1><p>${escapeHtml(String(event.summary ?? ''))}</p></main></body>
</html>`;
}

/** A stored object to an ActivityPub client: 404 when not served, 302 to a remote one's origin, else the document. */
export function sendServedObject(res: Response, found: ServedObject | null): void {
  if (!found) return void res.status(404).json({ error: 'Record not found' });
  if ('redirect' in found) return res.redirect(302, found.redirect);
  res.status(200).set('Content-Type', ACTIVITY_JSON_UTF8).send(JSON.stringify(found.document));
}
