import express, { type Request, type Response, type Router } from 'express';
import type { Actor } from '../actors/actor.types.js';
import { toActor, type ActorStore } from '../actors/actor.store.js';
import { buildHostMetaJrd, buildHostMetaXrd } from './host-meta.builder.js';
import { buildWebFinger, parseWebFingerResource, type WebFingerOptions } from './webfinger.builder.js';
import { JRD_CONTENT_TYPE, JRD_MEDIA_TYPE, XRD_CONTENT_TYPE, XRD_MEDIA_TYPE } from './webfinger.types.js';
import { jrdToXrd } from './xrd.serializer.js';

export interface DiscoveryRouterOptions {
  /** The instance's public base URL (`https://host[:port]`); its host is the default `domain`. */
  publicUrl: string;
  /** The `acct:` domain when it differs from the public URL's host (split-domain setups). */
  domain?: string;
  actors: ActorStore;
  subscribeTemplate?: WebFingerOptions['subscribeTemplate'];
  extraLinks?: WebFingerOptions['extraLinks'];
}

/** Browser clients (web apps of other instances) read these documents cross-origin. */
const CORS = { 'Access-Control-Allow-Origin': '*' };

/** Mastodon lets peers cache discovery answers for three days. */
const CACHE_CONTROL = 'public, max-age=259200';

/**
 * `/.well-known/webfinger`, `/.well-known/host-meta` and `/.well-known/host-meta.json` for one
 * instance. Only local, unsuspended actors of this domain are found. Mount at the root.
 */
export function createDiscoveryRouter(options: DiscoveryRouterOptions): Router {
  const publicUrl = options.publicUrl.replace(/\/+$/, '');
  const webHost = new URL(publicUrl).host.toLowerCase();
  const domain = (options.domain ?? webHost).toLowerCase();
  const webFinger: WebFingerOptions = {
    domain,
    subscribeTemplate: options.subscribeTemplate,
    extraLinks: options.extraLinks,
  };
  const router = express.Router();

  router.get('/.well-known/webfinger', (req, res, next) => {
    res.vary('Accept').set(CORS);
    const resource = req.query['resource'];
    if (typeof resource !== 'string' || resource.trim() === '') {
      res.status(400).json({ error: 'The resource parameter is required' });
      return;
    }
    void (async () => {
      const actor = await findLocalActor(options.actors, resource, { domain, webHost });
      if (!actor) {
        res.status(404).json({ error: 'Record not found' });
        return;
      }
      const jrd = await buildWebFinger(actor, webFinger);
      res.set('Cache-Control', CACHE_CONTROL);
      if (prefersXrd(req)) res.set('Content-Type', XRD_CONTENT_TYPE).send(jrdToXrd(jrd));
      else sendJson(res, JRD_CONTENT_TYPE, jrd);
    })().catch(next);
  });

  router.get('/.well-known/host-meta', (req, res) => {
    res.vary('Accept').set(CORS).set('Cache-Control', CACHE_CONTROL);
    if (prefersJson(req)) sendJson(res, JRD_CONTENT_TYPE, buildHostMetaJrd(publicUrl));
    else res.set('Content-Type', XRD_CONTENT_TYPE).send(buildHostMetaXrd(publicUrl));
  });

  router.get('/.well-known/host-meta.json', (_req, res) => {
    res.set(CORS).set('Cache-Control', CACHE_CONTROL);
    sendJson(res, 'application/json; charset=utf-8', buildHostMetaJrd(publicUrl));
  });

  return router;
}

/** XRD only when the client ranks it above JSON; no Accept (or `*\/*`) gets JRD. */
function prefersXrd(req: Request): boolean {
  const best = req.accepts([JRD_MEDIA_TYPE, 'application/json', XRD_MEDIA_TYPE, 'application/xml']);
  return best === XRD_MEDIA_TYPE || best === 'application/xml';
}

/** host-meta is XRD by default (RFC 6415); JSON only when the client ranks it first. */
function prefersJson(req: Request): boolean {
  const best = req.accepts([XRD_MEDIA_TYPE, 'application/xml', JRD_MEDIA_TYPE, 'application/json']);
  return best === JRD_MEDIA_TYPE || best === 'application/json';
}

function sendJson(res: Response, contentType: string, body: unknown): void {
  res.set('Content-Type', contentType).send(JSON.stringify(body));
}

/** acct: resources name our `domain`; URL resources (ids, profile pages) live on the web host. */
async function findLocalActor(
  actors: ActorStore,
  resource: string,
  hosts: { domain: string; webHost: string },
): Promise<Actor | null> {
  const parsed = parseWebFingerResource(resource);
  if (!parsed) return null;
  let actor: Actor | null;
  if (parsed.kind === 'acct') {
    if (parsed.host !== hosts.domain) return null;
    actor = await actors.findByUsername(parsed.username, null);
  } else {
    if (parsed.url.host.toLowerCase() !== hosts.webHost) return null;
    actor = await findByUrl(actors, resource.trim(), parsed.url.href);
  }
  return actor && actor.local && !actor.suspended ? actor : null;
}

/** The actor whose id or profile page is this URL (as given, or normalised by WHATWG URL parsing). */
async function findByUrl(actors: ActorStore, raw: string, normalised: string): Promise<Actor | null> {
  for (const url of new Set([raw, normalised])) {
    const byUri = await actors.findByUri(url);
    if (byUri) return byUri;
    const byProfile = await actors.model.findOne({ where: { url, domain: null } });
    if (byProfile) return toActor(byProfile.get());
  }
  return null;
}
