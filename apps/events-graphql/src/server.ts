import type { IncomingMessage, Server } from 'node:http';
import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import { expressClientIp } from '@agora/auth';
import { closeHttp, createHttpServer, listenHttp, readTlsCredentials } from '@agora/core';
import { runMigrations } from '@agora/db';
import { serveMedia } from '@agora/media';
import { nodeInfoRouter } from './federation/nodeinfo.js';
import { groupFederationRouter } from './federation/group-collections.js';
import { eventObjectsRouter } from './federation/object-routes.js';
import { groupContentObjectsRouter } from './federation/group-content-routes.js';
import type { AppContext } from './context.js';
import { createApollo } from './graphql/apollo.js';
import { GENERIC_FAILURE, httpErrorBody, sendHttpError } from './graphql/errors.js';
import { apolloExpressHandler } from './graphql/express-adapter.js';
import { graphiqlRouter } from './graphql/graphiql.js';
import { graphqlHttpRouter } from './graphql/http.js';
import { phoenixSocketRoute } from './graphql/phoenix.js';
import { GraphQLPipeline } from './graphql/pipeline.js';
import { routeUpgrades } from './graphql/socket-routes.js';
import { graphQLWsRoute } from './graphql/ws.js';
import { healthRouter } from './http/health.js';
import { homeRouter } from './http/home.js';
import { uploadsOf } from './http/uploads.js';
import { migrationSets } from './migrations/index.js';
import { configAnswerCache } from './modules/config/config.answer-cache.js';
import { eventAnswerCache } from './modules/events/event-answer-cache.js';
import { groupAnswerCache } from './modules/groups/group-answer-cache.js';
import { exportsRouter } from './modules/exports/exports.router.js';
import { participationPagesRouter } from './modules/participation-pages/participation-pages.router.js';
import { BearerAuthentication } from './modules/users/bearer-auth.js';

export interface AppServer {
  readonly app: express.Express;
  start(): Promise<{ url: string; port: number }>;
  stop(): Promise<void>;
}

/**
 * The events service over a context: GraphQL on /api, over WebSocket on /graphql_socket (graphql-ws) and
 * /graphql_socket/websocket (Absinthe over Phoenix channels), GraphiQL, /health.
 */
export function createServer(ctx: AppContext): AppServer {
  const { config, logger } = ctx;
  const pipeline = new GraphQLPipeline(ctx, logger);
  const apollo = createApollo({
    pipeline,
    nodeEnv: config.nodeEnv,
    plugins: [configAnswerCache(), eventAnswerCache(), groupAnswerCache()],
  });
  const bearer = new BearerAuthentication(ctx.sessions);
  let apolloHandler: RequestHandler | undefined;

  const app = express();
  app.disable('x-powered-by');
  // GraphQL answers are POST responses: an ETag costs a hash of every body and buys nothing.
  app.set('etag', false);
  app.set('trust proxy', config.http.trustProxy);
  app.use(healthRouter(ctx));
  app.use(homeRouter(ctx));
  // Before GraphQL: a bad token never gets that far.
  app.use('/api', bearer.middleware);
  app.use(
    graphqlHttpRouter({
      apollo: () => apolloHandler,
      bodyLimitBytes: config.http.bodyLimitBytes,
      uploads: uploadOptions(config),
    }),
  );
  // Uploaded files, by the keys the pipeline gave them.
  app.use('/media', serveMedia(ctx.media.storage));
  // Participant exports, to the event's organizer only (a bearer token, as on /api).
  app.use(exportsRouter(ctx.participantExports, bearer));
  // The pages the anonymous participation e-mails link to (confirm, cancel).
  app.use(participationPagesRouter(ctx));
  if (config.graphql.graphiql) app.use(graphiqlRouter());
  // WebFinger, host-meta, actor documents (`/@:name`, `/relay`) and the inboxes.
  app.use(ctx.federation.routes({ actorPath: '/@:name', instanceActorPath: '/relay' }));
  app.use(nodeInfoRouter(ctx));
  // `/events/:uuid` and `/comments/:uuid`: ActivityPub objects by content negotiation.
  // Before the events' objects: discussion messages among /comments/:uuid are the group content's.
  app.use(groupContentObjectsRouter(ctx));
  app.use(eventObjectsRouter(ctx));
  // A group's collections (`/@group/members`, …) and memberships (`/member/:uuid`), for ActivityPub clients.
  app.use(
    groupFederationRouter({
      sources: ctx.groupCollections,
      memberFederation: ctx.groupMemberFederation,
      actors: ctx.actors,
      federation: ctx.federation,
      sequelize: ctx.sequelize,
    }),
  );
  app.use((_req, res) => sendHttpError(res, 404, 'not_found', 'Not found'));
  const lastResort: ErrorRequestHandler = (error: unknown, req, res, _next) => {
    logger.error({ err: error, method: req.method, path: req.path }, 'request failed');
    sendHttpError(res, 500, 'unknown', GENERIC_FAILURE);
  };
  app.use(lastResort);

  let httpServer: Server | undefined;
  let ws: { close(): Promise<void> } | undefined;
  let started = false;
  let stopping: Promise<void> | undefined;

  return {
    app,
    async start() {
      if (started) throw new Error('the server is already started');
      started = true;
      if (config.db.migrateOnStart) await runMigrations(ctx.sequelize, migrationSets(), logger);
      await ctx.instanceConfig.start();
      await ctx.actors.registerKeyWorker();
      await ctx.federation.startWorkers();
      await ctx.remoteMedia.jobs.registerWorker();
      await ctx.participations.registerWorkers();
      await ctx.announcements.registerWorkers();
      await ctx.events.registerWorkers();
      await ctx.memberMails.registerWorkers();
      await ctx.conversationMails.registerWorkers();
      await ctx.groupContentFederation.registerWorkers();
      await ctx.queue.start();
      // Web processes only enqueue: housekeeping runs where workers run.
      if (config.role !== 'web') await ctx.jobs.start();
      if (config.role === 'worker') return { url: config.http.publicUrl, port: config.http.port };

      await apollo.start();
      apolloHandler = apolloExpressHandler(apollo, async (req) =>
        pipeline.createContext({
          headers: req.headers,
          ip: req.ip,
          userId: bearer.userIdOf(req),
          sessionId: bearer.sessionIdOf(req),
          uploads: uploadsOf(req),
        }),
      );
      const server = createHttpServer(app, {
        timeouts: config.http.timeouts,
        tls: await readTlsCredentials(config.http.tls),
        errorBody: (status, message) => ({
          contentType: 'application/json',
          body: httpErrorBody(status, message),
        }),
      });
      httpServer = server;
      // The WebSocket wires over the same pipeline: graphql-ws, and the reference client's Phoenix channels.
      const socketOptions = {
        pipeline,
        sessions: ctx.sessions,
        ipOf: (request: IncomingMessage) => expressClientIp(app, request),
        maxPayloadBytes: config.http.bodyLimitBytes,
      };
      ws = routeUpgrades(server, [graphQLWsRoute(socketOptions), phoenixSocketRoute(socketOptions)]);
      return listenHttp(server, config.http.host, config.http.port);
    },
    stop() {
      stopping ??= (async () => {
        await ws?.close();
        if (httpServer) await closeHttp(httpServer);
        if (apolloHandler) await apollo.stop();
        await ctx.close();
      })();
      return stopping;
    },
  };
}

/** Multipart requests: files up to the largest upload limit (each kind checks its own), a few at once. */
function uploadOptions(config: AppContext['config']) {
  const { default: attachment, avatar, banner } = config.instance.uploadLimits;
  return {
    maxFileBytes: Math.max(attachment, avatar, banner),
    maxFiles: 4,
    maxFieldBytes: config.http.bodyLimitBytes,
  };
}
