import cors from 'cors';
import express, { Router, type ErrorRequestHandler, type Request, type RequestHandler } from 'express';
import type { GraphQLSchema } from 'graphql';
import type { Logger } from '@agora/core';
import type { GraphQLContext } from './context.js';
import type { DocumentCache } from './document-cache.js';
import { sendHttpError } from './errors.js';
import { graphqlFastPath } from './fast-path.js';
import type { StateToken } from './response-cache.js';

export interface GraphQLHttpOptions {
  schema: GraphQLSchema;
  documents: DocumentCache;
  createContext: (req: Request) => GraphQLContext;
  /** Apollo's Express handler; it exists once the server has started. */
  apollo: () => RequestHandler | undefined;
  bodyLimitBytes: number;
  fastPath: boolean;
  stateTokens: ReadonlyMap<string, StateToken>;
  logger: Logger;
}

/** What body-parser's failures mean to a client, as GraphQL-shaped errors. */
const bodyErrors: ErrorRequestHandler = (error: unknown, _req, res, next) => {
  const { type, status, limit } = (error ?? {}) as { type?: string; status?: number; limit?: number };
  switch (type) {
    case 'entity.parse.failed':
      return sendHttpError(res, 400, 'bad_request', 'The request body is not valid JSON.');
    case 'entity.too.large':
      return sendHttpError(res, 413, 'payload_too_large', `The request body is larger than ${limit} bytes.`);
    case 'encoding.unsupported':
    case 'charset.unsupported':
      return sendHttpError(res, 415, 'unsupported_media_type', 'The request body must be UTF-8 JSON.');
    case 'request.aborted':
    case 'request.size.invalid':
      return sendHttpError(
        res,
        status ?? 400,
        'bad_request',
        'The request body was not received completely.',
      );
    default:
      return next(error);
  }
};

/** POST bodies must be JSON: anything else gets a 415 before being read (and never reaches GraphQL). */
const requireJson: RequestHandler = (req, res, next) => {
  const type = req.headers['content-type'];
  if (type !== undefined && /^application\/json\s*(;|$)/i.test(type)) return next();
  sendHttpError(
    res,
    415,
    'unsupported_media_type',
    `Unsupported content type ${type === undefined ? '(none)' : JSON.stringify(type)}: send the operation as application/json.`,
  );
};

/**
 * GraphQL over HTTP at /api: POST with a JSON body {query, variables, operationName}, GET with the same
 * as query parameters (queries only), CORS open to any origin (credentials travel in the Authorization
 * header, never in cookies).
 */
export function graphqlHttpRouter(options: GraphQLHttpOptions): Router {
  const router = Router();
  const apollo: RequestHandler = (req, res, next) => {
    const handler = options.apollo();
    if (!handler) return sendHttpError(res, 503, 'unavailable', 'The server is starting; try again shortly.');
    return handler(req, res, next);
  };
  router.use('/api', cors({ maxAge: 86_400 }));
  const post: RequestHandler[] = [requireJson, express.json({ limit: options.bodyLimitBytes })];
  if (options.fastPath) post.push(graphqlFastPath(options));
  router.post('/api', ...post, apollo);
  router.all(
    '/api',
    (req, _res, next) => {
      // Apollo's Express integration insists on a parsed body; GET and other methods carry none.
      req.body ??= {};
      next();
    },
    apollo,
  );
  router.use('/api', bodyErrors);
  return router;
}
