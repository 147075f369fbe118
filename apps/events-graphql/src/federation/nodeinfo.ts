import { Router } from 'express';
import {
  buildNodeInfo,
  buildNodeInfoDiscovery,
  isNodeInfoVersion,
  nodeInfoContentType,
  NODEINFO_VERSIONS,
} from '@agora/federation';
import { QueryTypes } from 'sequelize';
import type { AppContext } from '../context.js';
import { appVersion } from '../version.js';

/** FEP-2677: the discovery document also names the instance's Application actor (the relay). */
const APPLICATION_REL = 'https://www.w3.org/ns/activitystreams#Application';

/**
 * NodeInfo as the events reference serves it: `/.well-known/nodeinfo` links 2.0 and 2.1 (at
 * `/.well-known/nodeinfo/<version>`) and the relay actor; other versions are 404.
 */
export function nodeInfoRouter(ctx: AppContext): Router {
  const router = Router();
  const publicUrl = ctx.config.http.publicUrl;
  router.get('/.well-known/nodeinfo', async (_req, res, next) => {
    try {
      const discovery = buildNodeInfoDiscovery(publicUrl);
      const links = discovery.links.map((link) => ({
        ...link,
        href: link.href.replace(`${publicUrl}/nodeinfo/`, `${publicUrl}/.well-known/nodeinfo/`),
      }));
      const relay = await ctx.federation.instanceActor();
      res
        .set('Access-Control-Allow-Origin', '*')
        .json({ links: [...links, { rel: APPLICATION_REL, href: relay.uri }] });
    } catch (error) {
      next(error);
    }
  });
  router.get('/.well-known/nodeinfo/:version', async (req, res, next) => {
    const { version } = req.params;
    if (!isNodeInfoVersion(version)) {
      res
        .status(404)
        .json({ error: `NodeInfo ${version} is not served; use ${NODEINFO_VERSIONS.join(' or ')}` });
      return;
    }
    try {
      const settings = ctx.instanceConfig.settings();
      const [stats, active] = await Promise.all([ctx.statistics.snapshot(), activeUsers(ctx)]);
      const document = buildNodeInfo(version, {
        software: { name: 'agora', version: appVersion() },
        protocols: ['activitypub'],
        // The reference publishes Atom feeds (outbound) and takes nothing in over other protocols.
        services: { inbound: [], outbound: ['atom1.0'] },
        openRegistrations: settings.registrationsOpen,
        usage: {
          users: { total: stats.numberOfUsers, ...active },
          localPosts: stats.numberOfLocalEvents,
          localComments: stats.numberOfLocalComments,
        },
        metadata: {
          nodeName: settings.instanceName,
          nodeDescription: settings.instanceDescription,
          upstream: { name: 'mobilizon' },
        },
      });
      res
        .set('Access-Control-Allow-Origin', '*')
        .type(nodeInfoContentType(version))
        .send(JSON.stringify(document));
    } catch (error) {
      next(error);
    }
  });
  return router;
}

/** Confirmed, enabled users signed in within 30 and 180 days (one query, on the sign-in column). */
async function activeUsers(ctx: AppContext): Promise<{ activeMonth: number; activeHalfyear: number }> {
  const [row] = await ctx.sequelize.query<{ month: number; halfyear: number }>(
    `SELECT count(*) FILTER (WHERE current_sign_in_at > now() - interval '30 days')::int AS month,
            count(*) FILTER (WHERE current_sign_in_at > now() - interval '180 days')::int AS halfyear
       FROM users WHERE confirmed_at IS NOT NULL AND NOT disabled`,
    { type: QueryTypes.SELECT },
  );
  return { activeMonth: row?.month ?? 0, activeHalfyear: row?.halfyear ?? 0 };
}
