import { createServer as createHttpServer, type Server } from 'node:http';
import { expressMiddleware } from '@as-integrations/express5';
import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import { expressClientIp } from '@agora/auth';
import { closeHttp, listenHttp } from '@agora/core';
import { runMigrations } from '@agora/db';
import { serveMedia } from '@agora/media';
import { nodeInfoRouter } from './federation/nodeinfo.js';
import type { AppContext } from './context.js';
import { createApollo } from './graphql/apollo.js';
import { RequestContext } from './graphql/context.js';
import { DocumentCache } from './graphql/document-cache.js';
import { sendHttpError } from './graphql/errors.js';
import { graphiqlRouter } from './graphql/graphiql.js';
import { graphqlHttpRouter } from './graphql/http.js';
import { buildSchema, RESPONSE_STATE_TOKENS, VALIDATION_RULES } from './graphql/schema.js';
import { attachGraphQLWs } from './graphql/ws.js';
import { healthRouter } from './http/health.js';
import { homeRouter } from './http/home.js';
import { uploadsOf } from './http/uploads.js';
import { migrationSets } from './migrations/index.js';
import { BearerAuthentication } from './modules/users/bearer-auth.js';

export interface AppServer {
  readonly app: express.Express;
  start(): Promise<{ url: string; port: number }>;
  stop(): Promise<void>;
}

/** The events service over a context: GraphQL on /api and /graphql_socket, GraphiQL, /health. */
export function createServer(ctx: AppContext): AppServer {
  const { config, logger } = ctx;
  const schema = buildSchema();
  const documents = new DocumentCache(schema, VALIDATION_RULES);
  const apollo = createApollo({
    schema,
    logger: logger.child({ component: 'apollo' }),
    nodeEnv: config.nodeEnv,
  });
  const bearer = new BearerAuthentication(ctx.sessions);
  const createContext = (req: express.Request) =>
    new RequestContext(ctx, req.headers, {
      ip: req.ip,
      userId: bearer.userIdOf(req),
      uploads: uploadsOf(req),
    });
  let apolloHandler: RequestHandler | undefined;

  const app = express();
  app.disable('x-powered-by');
  // GraphQL answers are POST responses: an ETag costs a hash of every body and buys nothing.
  app.set('etag', false);
  app.set('trust proxy', config.http.trustProxy);
  app.use(healthRouter(ctx));
  app.use(homeRouter(ctx));
  // Before GraphQL on every path to it (Apollo and the fast path alike): a bad token never gets that far.
  app.use('/api', bearer.middleware);
  const graphql = graphqlHttpRouter({
    schema,
    documents,
    createContext,
    apollo: () => apolloHandler,
    bodyLimitBytes: config.http.bodyLimitBytes,
    fastPath: config.graphql.fastPath,
    stateTokens: RESPONSE_STATE_TOKENS,
    logger,
    uploads: uploadOptions(config),
    bearer,
  });
  app.use(graphql);
  // Uploaded files, by the keys the pipeline gave them.
  app.use('/media', serveMedia(ctx.media.storage));
  if (config.graphql.graphiql) app.use(graphiqlRouter());
  // WebFinger, host-meta, actor documents (`/@:name`, `/relay`) and the inboxes.
  app.use(ctx.federation.routes({ actorPath: '/@:name', instanceActorPath: '/relay' }));
  app.use(nodeInfoRouter(ctx));
  app.use((_req, res) => sendHttpError(res, 404, 'not_found', 'Not found'));
  const lastResort: ErrorRequestHandler = (error: unknown, req, res, _next) => {
    logger.error({ err: error, method: req.method, path: req.path }, 'request failed');
    sendHttpError(res, 500, 'unknown', 'Something went wrong');
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
      await ctx.queue.start();
      // Web processes only enqueue: housekeeping runs where workers run.
      if (config.role !== 'web') await ctx.jobs.start();
      if (config.role === 'worker') return { url: config.http.publicUrl, port: config.http.port };

      await apollo.start();
      apolloHandler = expressMiddleware(apollo, { context: async ({ req }) => createContext(req) });
      const server = createHttpServer(graphql.withFastLane(app));
      httpServer = server;
      ws = attachGraphQLWs(server, {
        app: ctx,
        schema,
        documents,
        logger,
        ipOf: (request) => expressClientIp(app, request),
      });
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
