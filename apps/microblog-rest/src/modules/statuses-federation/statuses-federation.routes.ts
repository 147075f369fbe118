import { Router, type NextFunction, type Request, type Response } from 'express';
import { isRowId } from '@agora/db';
import {
  ACTIVITY_JSON_UTF8,
  collectionPageOf,
  orderedCollection,
  orderedCollectionPage,
  wantsActivityPub,
  type Actor,
  type ActorStore,
  type Federation,
} from '@agora/federation';
import { STATUS_CONTEXT } from './note-objects.js';
import type { StatusFederation } from './statuses.federation.js';

/** Items per page of the actor collections (Mastodon: 20 statuses, 10–12 accounts; one size here). */
export const COLLECTION_PAGE_SIZE = 20;
const AS_CONTEXT = 'https://www.w3.org/ns/activitystreams';

/**
 * The documents behind a local account's ActivityPub URLs: each status id (`/users/:name/statuses/:id`,
 * by content negotiation; a browser is sent to the `/@name/:id` page; followers-only and direct
 * statuses only to a signed fetch by an actor who may see them), and the collections the actor
 * document advertises — `outbox`, `followers`, `following` (paginated OrderedCollections) and
 * `collections/featured` (the pinned statuses, inline as Mastodon serves them).
 */
export function statusesFederationRouter(deps: {
  statusFederation: StatusFederation;
  actors: ActorStore;
  federation: Federation;
  publicUrl: string;
}): Router {
  const router = Router();
  const { statusFederation, actors } = deps;
  const send = (res: Response, document: Record<string, unknown>) => {
    res.status(200).set('Content-Type', ACTIVITY_JSON_UTF8).send(JSON.stringify(document));
  };
  const notFound = (res: Response) => void res.status(404).json({ error: 'Record not found' });
  const localActor = async (req: Request): Promise<Actor | null> => {
    const actor = await actors.findByUsername(String(req.params.name), null);
    return actor?.local && !actor.suspended ? actor : null;
  };
  const handle =
    (run: (req: Request, res: Response, next: NextFunction) => Promise<void>) =>
    (req: Request, res: Response, next: NextFunction) => {
      run(req, res, next).catch(next);
    };

  router.get(
    '/users/:name/statuses/:id',
    handle(async (req, res) => {
      res.vary('Accept');
      const name = String(req.params.name);
      const id = String(req.params.id);
      if (!wantsActivityPub(req.get('accept'))) {
        if (!isRowId(id)) return notFound(res);
        return void res.redirect(302, `${deps.publicUrl}/@${encodeURIComponent(name)}/${id}`);
      }
      const fetcher = await deps.federation.signedFetcher({
        method: req.method,
        url: req.originalUrl,
        headers: req.headers,
      });
      const document = await statusFederation.noteDocument(name, id, fetcher);
      if (!document) return notFound(res);
      send(res, document);
    }),
  );

  router.get(
    '/users/:name/statuses/:id/replies',
    handle(async (req, res) => {
      const minId =
        typeof req.query.min_id === 'string' && isRowId(req.query.min_id) ? req.query.min_id : null;
      const found = await statusFederation.repliesPage(
        String(req.params.name),
        String(req.params.id),
        minId,
        COLLECTION_PAGE_SIZE,
      );
      if (!found) return notFound(res);
      const base = `${found.uri}/replies`;
      const page = {
        id: minId ? `${base}?min_id=${minId}&page=true` : `${base}?page=true`,
        type: 'CollectionPage',
        partOf: base,
        ...(found.nextMinId ? { next: `${base}?min_id=${found.nextMinId}&page=true` } : {}),
        items: found.items,
      };
      if (req.query.page === 'true') return send(res, { '@context': AS_CONTEXT, ...page });
      send(res, { '@context': AS_CONTEXT, id: base, type: 'Collection', first: page });
    }),
  );

  router.get(
    '/users/:name/outbox',
    handle(async (req, res) => {
      const actor = await localActor(req);
      if (!actor) return notFound(res);
      const base = `${actor.uri}/outbox`;
      if (req.query.page !== 'true') {
        return send(res, {
          '@context': AS_CONTEXT,
          id: base,
          type: 'OrderedCollection',
          totalItems: actor.statusesCount,
          first: `${base}?page=true`,
          last: `${base}?min_id=0&page=true`,
        });
      }
      const maxId =
        typeof req.query.max_id === 'string' && isRowId(req.query.max_id) ? req.query.max_id : null;
      const { items, nextMaxId } = await statusFederation.outboxPage(actor, maxId, COLLECTION_PAGE_SIZE);
      // Its items are inline Notes: their `sensitive`, `blurhash`, … need the status context, under
      // which a JSON-LD reader (Fedify) would otherwise drop them (issue 16 §7).
      send(res, {
        '@context': STATUS_CONTEXT,
        id: maxId ? `${base}?max_id=${maxId}&page=true` : `${base}?page=true`,
        type: 'OrderedCollectionPage',
        partOf: base,
        ...(nextMaxId ? { next: `${base}?max_id=${nextMaxId}&page=true` } : {}),
        orderedItems: items,
      });
    }),
  );

  for (const which of ['followers', 'following'] as const) {
    router.get(
      `/users/:name/${which}`,
      handle(async (req, res) => {
        const actor = await localActor(req);
        if (!actor) return notFound(res);
        const base = `${actor.uri}/${which}`;
        const totalItems = which === 'followers' ? actor.followersCount : actor.followingCount;
        const page = collectionPageOf(req.query.page);
        if (page === null) return send(res, orderedCollection(base, totalItems));
        const { items, more } = await statusFederation.followPage(actor, which, page, COLLECTION_PAGE_SIZE);
        send(res, orderedCollectionPage(base, page, totalItems, items, more));
      }),
    );
  }

  router.get(
    '/users/:name/collections/featured',
    handle(async (req, res) => {
      const actor = await localActor(req);
      if (!actor) return notFound(res);
      const items = await statusFederation.featured(actor);
      send(res, {
        '@context': STATUS_CONTEXT,
        id: `${actor.uri}/collections/featured`,
        type: 'OrderedCollection',
        totalItems: items.length,
        orderedItems: items,
      });
    }),
  );
  return router;
}
