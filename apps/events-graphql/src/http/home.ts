import { Router } from 'express';
import { HOME_PAGE_HEADERS, renderHomePage, type HomePageLink } from '@agora/core';
import type { AppContext } from '../context.js';
import { appVersion } from '../version.js';

/**
 * GET /: a page for people who open the service in a browser (issue 11 §13). A client that prefers
 * JSON (or anything but HTML) falls through to the usual JSON 404: `/` is no API resource.
 */
export function homeRouter(ctx: AppContext): Router {
  const router = Router();
  const version = appVersion();
  const links: HomePageLink[] = [
    { label: 'GraphQL API', text: 'POST /api', note: '(the Mobilizon web client’s API)' },
    { label: 'Subscriptions', text: 'ws /graphql_socket', note: '(graphql-ws)' },
    ...(ctx.config.graphql.graphiql
      ? [{ label: 'GraphiQL', href: '/graphiql', note: '(explore the API in the browser)' }]
      : []),
    { label: 'NodeInfo', href: '/.well-known/nodeinfo', note: '(instance name, software, usage)' },
    { label: 'Health', href: '/health' },
  ];
  router.get('/', (req, res, next) => {
    res.vary('Accept');
    if (req.accepts(['html', 'json']) !== 'html') {
      next();
      return;
    }
    const settings = ctx.instanceConfig.settings();
    const page = renderHomePage({
      instanceName: settings.instanceName,
      description: settings.instanceDescription,
      software: 'Agora events',
      version,
      links,
    });
    res.set(HOME_PAGE_HEADERS).send(page);
  });
  return router;
}
