import { Router } from 'express';
import { HOME_PAGE_HEADERS, renderHomePage, type HomePageLink } from '@agora/core';
import type { InstanceService } from '../modules/instance/instance.service.js';
import { AGORA_VERSION, MASTODON_COMPATIBLE_VERSION } from '../version.js';

/**
 * GET /: a page for people who open the service in a browser (issue 11 §13). A client that prefers
 * JSON (or anything but HTML) falls through to the usual `{"error"}` 404: `/` is no API resource.
 */
export function homeRouter(instance: InstanceService, sourceUrl: string | null): Router {
  const router = Router();
  const links: HomePageLink[] = [
    {
      label: 'Instance',
      href: '/api/v2/instance',
      note: `(Mastodon API ${MASTODON_COMPATIBLE_VERSION}; also /api/v1)`,
    },
    { label: 'REST API', text: '/api/v1, /api/v2', note: '(use a Mastodon client with this address)' },
    { label: 'OAuth', href: '/.well-known/oauth-authorization-server' },
    { label: 'NodeInfo', href: '/.well-known/nodeinfo' },
    { label: 'Health', href: '/health' },
    ...(sourceUrl ? [{ label: 'Source code', href: sourceUrl }] : []),
  ];
  router.get('/', async (req, res, next) => {
    res.vary('Accept');
    if (req.accepts(['html', 'json']) !== 'html') {
      next();
      return;
    }
    try {
      // Stored settings first: an administrator's title replaces the configured one.
      const settings = await instance.settings();
      const page = renderHomePage({
        instanceName: settings.title,
        description: settings.shortDescription,
        software: 'Agora microblog',
        version: AGORA_VERSION,
        links,
      });
      res.set(HOME_PAGE_HEADERS).send(page);
    } catch (error) {
      next(error);
    }
  });
  return router;
}
