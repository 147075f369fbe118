import type { Request, RequestHandler } from 'express';
import type { Actor } from '../actors/actor.types.js';
import { ACTIVITY_JSON_UTF8, wantsActivityPub } from './accept.negotiation.js';
import { actorDocument, type ActorDocumentOptions } from './actor-document.builder.js';

export interface ActorDocumentHandlerOptions {
  /** Finds the local actor the request names (e.g. by `req.params.name`); null when there is none. */
  lookup: (req: Request) => Promise<Actor | null>;
  /** Document options, fixed or per actor (a group's `memberCount`, the `movedTo` target's id). */
  document: ActorDocumentOptions | ((actor: Actor) => ActorDocumentOptions | Promise<ActorDocumentOptions>);
  /** Serve suspended actors (Mastodon does, marked `suspended`); otherwise they are not found. */
  serveSuspended?: boolean;
}

/**
 * Serves an actor's ActivityPub document to clients that ask for it in `Accept`, and calls `next()`
 * for everyone else so the app can serve its HTML page or redirect from the same URL.
 */
export function actorDocumentHandler(options: ActorDocumentHandlerOptions): RequestHandler {
  return (req, res, next) => {
    // Caches must keep the HTML and the JSON answers of one URL apart.
    res.vary('Accept');
    if (!wantsActivityPub(req.get('accept'))) {
      next();
      return;
    }
    void (async () => {
      const actor = await options.lookup(req);
      const servable =
        actor !== null && actor.local && (!actor.suspended || (options.serveSuspended ?? false));
      if (!servable) {
        res.status(404).json({ error: 'Record not found' });
        return;
      }
      const documentOptions =
        typeof options.document === 'function' ? await options.document(actor) : options.document;
      res
        .status(200)
        .set('Content-Type', ACTIVITY_JSON_UTF8)
        .send(JSON.stringify(actorDocument(actor, documentOptions)));
    })().catch(next);
  };
}
