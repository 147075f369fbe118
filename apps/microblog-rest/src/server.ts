import type { Server } from 'node:http';
import express from 'express';
import { closeHttp, createHttpServer, listenHttp, readTlsCredentials } from '@agora/core';
import { runMigrations } from '@agora/db';
import { serveMedia } from '@agora/media';
import { earlyAccountsRouter } from './api/accounts.js';
import { earlyStatusesRouter } from './api/statuses.js';
import { earlyFollowsRouter } from './api/follows.js';
import { hotReads } from './api/hot-reads.js';
import { hotReadsRouter } from './http/hot-reads.js';
import { accountsRouter } from './api/v1/accounts.js';
import { accountStatusesRouter } from './api/v1/account-statuses.js';
import { discoveryRouter } from './api/v1/discovery.js';
import { announcementsRouter } from './api/v1/announcements.js';
import { appsRouter } from './api/v1/apps.js';
import { bookmarksRouter } from './api/v1/bookmarks.js';
import { favouritesRouter } from './api/v1/favourites.js';
import { blocksRouter } from './api/v1/blocks.js';
import { domainBlocksRouter } from './api/v1/domain-blocks.js';
import { followRequestsRouter } from './api/v1/follow-requests.js';
import { mutesRouter } from './api/v1/mutes.js';
import { preferencesRouter } from './api/v1/preferences.js';
import { instanceV1Router } from './api/v1/instance.js';
import { conversationsRouter } from './api/v1/conversations.js';
import { listsRouter } from './api/v1/lists.js';
import { markersRouter } from './api/v1/markers.js';
import { pollsRouter } from './api/v1/polls.js';
import { scheduledStatusesRouter } from './api/v1/scheduled-statuses.js';
import { statusesRouter } from './api/v1/statuses.js';
import { statusCardRouter } from './api/v1/status-card.js';
import { oembedRouter } from './api/oembed.js';
import { pushRouter } from './api/v1/push.js';
import { attachStreamingSocket } from './api/v1/streaming-socket.js';
import { streamingRouter } from './api/v1/streaming.js';
import { keptHomeFirstPage, timelinesRouter } from './api/v1/timelines.js';
import { tagsRouter } from './api/v1/tags.js';
import { mediaV1Router, type MediaRouterDeps } from './api/v1/media.js';
import { instanceV2Router } from './api/v2/instance.js';
import { mediaV2Router } from './api/v2/media.js';
import { searchRouter } from './api/v2/search.js';
import { filtersV1Router } from './api/v1/filters.js';
import { notificationsV1Router } from './api/v1/notifications.js';
import { filtersV2Router } from './api/v2/filters.js';
import { notificationsV2Router } from './api/v2/notifications.js';
import { missingImagesRouter } from './assets/missing-images.js';
import { previewImageRouter } from './assets/preview-image.js';
import { accountConfirmationRouter } from './auth/confirmation.js';
import { sessionsRouter } from './auth/sessions.js';
import { createPushHubRouter } from '@agora/federation';
import type { AppContext } from './context.js';
import { apiRateLimit } from './http/api-rate-limit.js';
import { bodyParsers } from './http/body.js';
import { CORS_PATHS, corsMiddleware } from './http/cors.js';
import { errorHandler, notFound, type ErrorJson } from './http/errors.js';
import { withFastLane } from './http/fast-lane.js';
import { healthRouter } from './http/health.js';
import { homeRouter } from './http/home.js';
import { refuseUnstorableBody, refuseUnstorableUrl } from './http/text-guard.js';
import { onlyItsPaths } from './http/route-prefixes.js';
import { migrationSets } from './migrations/index.js';
import { signInFlow } from './modules/oauth/authorize/sign-in-flow.js';
import { ensureWebApplication } from './modules/oauth/authorize/web-app.js';
import { bearerGuards } from './modules/oauth/bearer.js';
import { authorizeRouter } from './oauth/authorize.js';
import { oauthTokensRouter } from './oauth/tokens.js';
import { profilePagesRouter } from './web/profile-pages.js';
import { statusesFederationRouter } from './modules/statuses-federation/statuses-federation.routes.js';
import { ostatusRouter } from './modules/ostatus/ostatus.routes.js';
import { nodeInfoRouter } from './well-known/nodeinfo.js';
import { oauthMetadataRouter } from './well-known/oauth-authorization-server.js';

export interface AppServer {
  readonly app: express.Express;
  start(): Promise<{ url: string; port: number }>;
  stop(): Promise<void>;
}

/** The Express application: routes, CORS, body parsing and the one error middleware. */
export function createApp(ctx: AppContext): express.Express {
  const app = express();
  app.disable('x-powered-by');
  // Rails-style nested query strings (`id[]=1&id[]=2`), as Mastodon clients send them.
  app.set('query parser', 'extended');
  app.set('trust proxy', ctx.config.http.trustProxy);

  // Browser clients revoke tokens cross-origin too (sign-out in Elk, Phanpy).
  app.use([...CORS_PATHS, '/oauth/revoke'], corsMiddleware());
  // Before body parsing: a refused request costs no parsing.
  app.use('/api', apiRateLimit(ctx.rateLimiter, ctx.oauth));
  // Text PostgreSQL cannot store (U+0000, a lone surrogate) is a 422 here, never a 500 at the query.
  app.use(refuseUnstorableUrl());
  // The Atom feeds (`/users/:name.atom`, before the actor documents' `/users/:name`) and Salmon
  // (its own XML body parser).
  app.use(onlyItsPaths(ostatusRouter(ctx.ostatus)));
  // WebFinger, host-meta, actor documents (`/users/:name`, `/actor`) and the inboxes; before the
  // body parsers: an inbox verifies the Digest over the raw bytes.
  app.use(onlyItsPaths(ctx.federation.routes({ actorPath: '/users/:name', instanceActorPath: '/actor' })));
  // Status ids and the actor collections (outbox, followers, following, featured)
  app.use(
    onlyItsPaths(
      statusesFederationRouter({
        statusFederation: ctx.statusFederation,
        actors: ctx.actors,
        federation: ctx.federation,
        publicUrl: ctx.config.http.publicUrl,
      }),
    ),
  );
  app.use(bodyParsers(ctx.config.http.bodyLimitBytes));
  app.use(refuseUnstorableBody());
  // The early API's PubSubHubbub hub (form-encoded subscription requests).
  app.use(createPushHubRouter(ctx.pushHub));

  // The routes, by URL; each file is named after the path it serves (ADR 0015).
  const { accounts, relationships, config } = ctx;
  const { publicUrl, bodyLimitBytes } = config.http;
  const guards = bearerGuards(ctx.oauth);
  const mediaDeps: MediaRouterDeps = {
    media: ctx.media,
    accounts,
    guards,
    limiter: ctx.rateLimiter,
    limits: config.media.limits,
    incomingDir: config.media.incomingDir,
  };
  const signIn = signInFlow({
    oauth: ctx.oauth,
    users: ctx.users,
    sessions: ctx.sessions,
    twoFactor: ctx.twoFactor,
    limiter: ctx.rateLimiter,
    logger: ctx.logger,
    publicUrl,
    instanceTitle: config.instance.title,
    keys: ctx.formKeys,
  });
  // / and /health (http/)
  app.use(onlyItsPaths(homeRouter(ctx.instance, config.instance.sourceUrl)));
  app.use(onlyItsPaths(healthRouter(ctx.sequelize)));
  const statusDeps = {
    statuses: ctx.statuses,
    accounts,
    oauth: ctx.oauth,
    guards,
    publicUrl,
    json: { publicUrl, mediaUrl: (key: string) => ctx.media.urlOf(key) },
    filters: ctx.filters,
  };
  const notificationDeps = {
    notifications: ctx.notifications,
    filters: ctx.filters,
    accounts,
    guards,
    publicUrl,
    json: statusDeps.json,
    views: {
      sequelize: ctx.sequelize,
      actors: ctx.actors,
      remoteImages: ctx.remoteMedia,
      statuses: ctx.statuses,
      filters: ctx.filters,
    },
  };
  // /@name and /@name/:id, the pages of accounts and posts (web/)
  app.use(
    onlyItsPaths(
      profilePagesRouter({
        sequelize: ctx.sequelize,
        actors: ctx.actors,
        remoteImages: ctx.remoteMedia,
        accounts,
        statuses: ctx.statuses,
        sessions: ctx.sessions,
        instance: ctx.instance,
        json: statusDeps.json,
        domain: config.http.domain,
      }),
    ),
  );
  // /api/accounts/:id and /api/statuses*, the early API (api/)
  app.use(onlyItsPaths(earlyStatusesRouter({ ...statusDeps, users: ctx.users, limiter: ctx.rateLimiter })));
  // /api/accounts/:id(/following|followers|follow|unfollow) and /api/follows
  // /api/oembed: the oEmbed provider for our statuses
  app.use(
    onlyItsPaths(oembedRouter({ statuses: ctx.statuses, publicUrl, providerName: config.http.domain })),
  );
  app.use(onlyItsPaths(earlyAccountsRouter(accounts, relationships, ctx.users, ctx.rateLimiter, publicUrl)));
  app.use(onlyItsPaths(earlyFollowsRouter(relationships, ctx.users, ctx.rateLimiter, publicUrl)));
  // The hot reads (api/hot-reads.ts), before the routers whose paths they share (`accounts/:id`)
  app.use(onlyItsPaths(hotReadsRouter(hotReads(ctx), guards)));
  // /api/v1/* (api/v1/<resource>.ts)
  app.use(
    onlyItsPaths(
      accountsRouter({
        accounts,
        relationships,
        oauth: ctx.oauth,
        guards,
        limiter: ctx.rateLimiter,
        publicUrl,
        bodyLimitBytes,
        uploads: { limits: config.media.limits, dir: config.media.incomingDir },
      }),
    ),
  );
  app.use(onlyItsPaths(accountStatusesRouter({ ...statusDeps, sequelize: ctx.sequelize })));
  app.use(onlyItsPaths(discoveryRouter(guards)));
  app.use(
    onlyItsPaths(announcementsRouter({ announcements: ctx.announcements, accounts, guards, publicUrl })),
  );
  app.use(onlyItsPaths(appsRouter(ctx.oauth, bodyLimitBytes, ctx.push.vapidPublicKey)));
  app.use(onlyItsPaths(blocksRouter(relationships, guards, publicUrl)));
  app.use(onlyItsPaths(domainBlocksRouter(relationships, guards, publicUrl)));
  app.use(onlyItsPaths(followRequestsRouter(relationships, guards, publicUrl)));
  app.use(onlyItsPaths(mutesRouter(relationships, guards, publicUrl)));
  app.use(onlyItsPaths(preferencesRouter(accounts, guards)));
  app.use(onlyItsPaths(instanceV1Router(ctx.instanceDocuments)));
  app.use(onlyItsPaths(mediaV1Router(mediaDeps)));
  app.use(
    onlyItsPaths(
      statusesRouter({
        ...statusDeps,
        accountViews: { sequelize: ctx.sequelize, actors: ctx.actors, remoteImages: ctx.remoteMedia },
        scheduledStatuses: ctx.scheduledStatuses,
      }),
    ),
  );
  app.use(onlyItsPaths(statusCardRouter(statusDeps)));
  app.use(onlyItsPaths(scheduledStatusesRouter({ ...statusDeps, scheduledStatuses: ctx.scheduledStatuses })));
  app.use(onlyItsPaths(pushRouter({ push: ctx.push, accounts, guards })));
  app.use(onlyItsPaths(markersRouter(ctx.markers, accounts, guards)));
  app.use(onlyItsPaths(pollsRouter({ ...statusDeps, polls: ctx.polls })));
  app.use(onlyItsPaths(timelinesRouter({ ...statusDeps, timelines: ctx.timelines, lists: ctx.lists })));
  app.use(onlyItsPaths(tagsRouter({ ...statusDeps, tags: ctx.tags })));
  app.use(
    onlyItsPaths(
      conversationsRouter({
        ...statusDeps,
        conversations: ctx.conversations,
        accountViews: { sequelize: ctx.sequelize, actors: ctx.actors, remoteImages: ctx.remoteMedia },
      }),
    ),
  );
  app.use(
    onlyItsPaths(
      listsRouter({
        lists: ctx.lists,
        accounts,
        guards,
        publicUrl,
        accountViews: { sequelize: ctx.sequelize, actors: ctx.actors, remoteImages: ctx.remoteMedia },
      }),
    ),
  );
  app.use(onlyItsPaths(favouritesRouter({ ...statusDeps, timelines: ctx.timelines })));
  app.use(onlyItsPaths(bookmarksRouter({ ...statusDeps, timelines: ctx.timelines })));
  app.use(onlyItsPaths(notificationsV1Router(notificationDeps)));
  app.use(onlyItsPaths(filtersV1Router(notificationDeps)));
  // /api/v1/streaming/* as server-sent events (the WebSocket is attached to the HTTP server in start())
  app.use(onlyItsPaths(streamingRouter({ streaming: ctx.streaming, oauth: ctx.oauth, accounts })));
  // /api/v2/* (api/v2/<resource>.ts)
  app.use(onlyItsPaths(instanceV2Router(ctx.instanceDocuments)));
  app.use(onlyItsPaths(mediaV2Router(mediaDeps)));
  app.use(onlyItsPaths(searchRouter({ ...statusDeps, search: ctx.search })));
  app.use(onlyItsPaths(notificationsV2Router(notificationDeps)));
  app.use(onlyItsPaths(filtersV2Router(notificationDeps)));
  // /oauth/* (oauth/) and /auth/* (auth/)
  app.use(onlyItsPaths(oauthTokensRouter(ctx.oauth, ctx.rateLimiter, bodyLimitBytes)));
  app.use(onlyItsPaths(authorizeRouter(signIn)));
  app.use(onlyItsPaths(sessionsRouter(signIn)));
  app.use(onlyItsPaths(accountConfirmationRouter(accounts, ctx.rateLimiter)));
  // /.well-known/oauth-authorization-server, /.well-known/nodeinfo and /nodeinfo/* (well-known/)
  app.use(onlyItsPaths(oauthMetadataRouter(ctx.oauth, publicUrl)));
  app.use(onlyItsPaths(nodeInfoRouter(ctx.instanceDocuments)));
  // Generated images: /images/preview.png, the missing avatar and header (assets/)
  app.use(onlyItsPaths(previewImageRouter()));
  app.use(onlyItsPaths(missingImagesRouter()));
  // Uploaded files (attachments, avatars, headers) under stable URLs; a missing one is a JSON 404.
  app.use('/system', serveMedia(ctx.mediaStorage));

  app.use('/api', notFound('Record not found'));
  app.use(notFound('Not found'));
  app.use(errorHandler(ctx.logger));
  return app;
}

export function createServer(ctx: AppContext): AppServer {
  const app = createApp(ctx);
  const { config, logger } = ctx;
  let http: Server | undefined;
  let sockets: { close(): Promise<void> } | undefined;
  let queueStarted = false;
  let stopping: Promise<void> | undefined;

  return {
    app,

    async start() {
      if (config.db.migrateOnStart) await runMigrations(ctx.sequelize, migrationSets(), logger);
      await ctx.actors.registerKeyWorker();
      await ctx.federation.startWorkers();
      await ctx.pushHub.registerWorker();
      await ctx.media.registerWorker();
      await ctx.remoteMedia.jobs.registerWorker();
      await ctx.statuses.registerWorker();
      await ctx.previewCards.registerWorker();
      await ctx.polls.registerWorker();
      await ctx.statusFederation.registerWorker();
      await ctx.ostatus.registerWorker();
      await ctx.scheduledStatuses.registerWorker();
      await ctx.lists.registerWorker();
      await ctx.notifications.registerWorker();
      await ctx.push.registerWorker();
      await ctx.queue.start();
      queueStarted = true;
      // Web processes only enqueue: housekeeping runs where workers run.
      if (config.role !== 'web') await ctx.jobs.start();
      if (config.role === 'worker') return { url: config.http.publicUrl, port: config.http.port };

      await ensureWebApplication(ctx.sequelize, {
        name: config.instance.title,
        redirectUri: `${config.http.publicUrl}/web`,
      });
      // Render the instance documents now, so the first request does not pay for it.
      await ctx.instanceDocuments.refresh();
      const server = createHttpServer(
        withFastLane(app, {
          reads: hotReads(ctx),
          pages: [keptHomeFirstPage(ctx.timelines, config.http.publicUrl)],
          oauth: ctx.oauth,
          limiter: ctx.rateLimiter,
          logger,
        }),
        {
          timeouts: config.http.timeouts,
          tls: await readTlsCredentials(config.http.tls),
          errorBody: (_status, message) => ({
            contentType: 'application/json; charset=utf-8',
            body: JSON.stringify({ error: message } satisfies ErrorJson),
          }),
        },
      );
      http = server;
      sockets = attachStreamingSocket(server, {
        streaming: ctx.streaming,
        oauth: ctx.oauth,
        accounts: ctx.accounts,
        logger,
      });
      return listenHttp(server, config.http.host, config.http.port);
    },

    stop() {
      stopping ??= (async () => {
        // Open streams never end by themselves: end them before waiting for the connections.
        await (sockets?.close() ?? ctx.streaming.close());
        if (http) await closeHttp(http);
        if (queueStarted) await ctx.queue.stop();
        await ctx.close();
      })();
      return stopping;
    },
  };
}
