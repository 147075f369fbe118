import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import cors from 'cors';
import express, {
  Router,
  type ErrorRequestHandler,
  type Express,
  type Request,
  type RequestHandler,
} from 'express';
import type { GraphQLSchema } from 'graphql';
import { expressClientIp } from '@agora/auth';
import type { Logger } from '@agora/core';
import { isMultipart, multipartGraphQL, type MultipartOptions } from '../http/uploads.js';
import type { BearerAuthentication } from '../modules/users/bearer-auth.js';
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
  /** Multipart requests carrying files (absent: refused as any other non-JSON body). */
  uploads?: MultipartOptions;
  /** The bearer check mounted before this router; with it (and the fast path on) the fast lane exists. */
  bearer?: BearerAuthentication;
}

/** The /api router, and the fast lane to put in front of the whole Express app. */
export interface GraphQLRouter extends Router {
  /**
   * The app's request listener with the common GraphQL POST served before Express: Express gives
   * every request its own prototypes (a V8 deoptimisation) and walks its router, which cost more
   * CPU than the GraphQL work of an authenticated read. Anything unusual is handed to `app` as is.
   */
  withFastLane(app: Express): RequestListener;
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

/**
 * POST bodies must be JSON, or multipart with files when uploads are on (the next route reads those):
 * anything else gets a 415 before being read (and never reaches GraphQL).
 */
const requireJson =
  (multipart: boolean): RequestHandler =>
  (req, res, next) => {
    const type = req.headers['content-type'];
    if (type !== undefined && /^application\/json\s*(;|$)/i.test(type)) return next();
    if (multipart && isMultipart(req)) return next('route');
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
export function graphqlHttpRouter(options: GraphQLHttpOptions): GraphQLRouter {
  const router = Router() as GraphQLRouter;
  const apollo: RequestHandler = (req, res, next) => {
    const handler = options.apollo();
    if (!handler) return sendHttpError(res, 503, 'unavailable', 'The server is starting; try again shortly.');
    return handler(req, res, next);
  };
  const preflight = cors({ maxAge: 86_400 });
  router.use('/api', (req, res, next) => {
    if (req.method === 'OPTIONS') return preflight(req, res, next);
    // All cors() adds outside a preflight (any origin, no credentials), without its per-request option merging.
    res.setHeader('Access-Control-Allow-Origin', '*');
    next();
  });
  const fastPath = options.fastPath ? graphqlFastPath(options) : undefined;
  // What the fast lane decided for a request it handed over, so it is not executed twice: next(outcome).
  const handedOver = new WeakMap<IncomingMessage, { error: unknown }>();
  const execute: RequestHandler[] = fastPath
    ? [
        (req, res, next) => {
          const outcome = handedOver.get(req);
          if (outcome) return outcome.error === undefined ? next() : next(outcome.error);
          return fastPath(req, res, next);
        },
      ]
    : [];
  const json = express.json({ limit: options.bodyLimitBytes });
  router.post('/api', requireJson(options.uploads !== undefined), json, ...execute, apollo);
  // Only multipart requests get here (the JSON route passes them on): files first, then the same path.
  if (options.uploads) router.post('/api', multipartGraphQL(options.uploads), ...execute, apollo);
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
  router.withFastLane = (app) =>
    fastPath && options.bearer
      ? fastLane(app, { ...options, bearer: options.bearer, fastPath, handedOver })
      : app;
  return router;
}

// What express.json reads the same way: UTF-8 JSON, no compression, a known length within the limit.
const LANE_CONTENT_TYPE = /^application\/json\s*(?:;\s*charset="?utf-8"?\s*)?$/i;
const JSON_WHITESPACE = /^[ \t\n\r]*(.?)/;

interface FastLaneOptions {
  bodyLimitBytes: number;
  bearer: BearerAuthentication;
  fastPath: RequestHandler;
  handedOver: WeakMap<IncomingMessage, { error: unknown }>;
}

/** The parsed body, or why it could not be read: express.json's outcomes for this subset. */
type ReadBody = { value: unknown } | { problem: 'invalid' | 'incomplete' };

function parseJsonBody(bytes: Buffer): ReadBody {
  let text = bytes.toString('utf8');
  // iconv-lite (under express.json) drops a UTF-8 byte order mark.
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (text.length === 0) return { value: {} };
  // express.json is strict: only an object or an array at the top.
  const first = JSON_WHITESPACE.exec(text)?.[1];
  if (first !== '{' && first !== '[') return { problem: 'invalid' };
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return { problem: 'invalid' };
  }
}

function fastLane(app: Express, options: FastLaneOptions): RequestListener {
  const { bearer, fastPath, handedOver, bodyLimitBytes } = options;
  /** What Express does first with every request (app.handle), for the few answers only Express helpers give. */
  const expressify = (req: IncomingMessage, res: ServerResponse): [Request, express.Response] => {
    const request = Object.setPrototypeOf(req, app.request) as Request;
    const response = Object.setPrototypeOf(res, app.response) as express.Response;
    request.res = response;
    response.req = request;
    response.locals ??= Object.create(null) as Record<string, unknown>;
    return [request, response];
  };
  const handOver = (req: IncomingMessage, res: ServerResponse, error?: unknown) => {
    handedOver.set(req, { error });
    app(req, res);
  };
  const ipOf = (req: IncomingMessage): string | undefined => expressClientIp(app, req);

  return (req, res) => {
    const { headers } = req;
    const length = headers['content-length'];
    const encoding = headers['content-encoding'];
    if (
      req.method !== 'POST' ||
      req.url !== '/api' ||
      length === undefined ||
      headers['transfer-encoding'] !== undefined ||
      (encoding !== undefined && encoding.toLowerCase() !== 'identity') ||
      !LANE_CONTENT_TYPE.test(headers['content-type'] ?? '')
    ) {
      return app(req, res);
    }
    const expected = Number(length);
    if (!(expected > 0 && expected <= bodyLimitBytes)) return app(req, res);
    // A refused token: Express's bearer middleware answers it (the 401 the GraphQL layer never sees).
    if (bearer.authenticate(req) === false) return app(req, res);

    const chunks: Buffer[] = [];
    let received = 0;
    req.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      received += chunk.length;
    });
    // The client went away mid-body: there is no one to answer.
    req.on('error', () => undefined);
    req.on('end', () => {
      const body: ReadBody =
        received === expected ? parseJsonBody(Buffer.concat(chunks, received)) : { problem: 'incomplete' };
      // As the router's CORS step, before anything is answered.
      res.setHeader('Access-Control-Allow-Origin', '*');
      if ('problem' in body) {
        const [, response] = expressify(req, res);
        return body.problem === 'invalid'
          ? sendHttpError(response, 400, 'bad_request', 'The request body is not valid JSON.')
          : sendHttpError(response, 400, 'bad_request', 'The request body was not received completely.');
      }
      // What the Express path would have set: the parsed body, and req.ip (computed when asked).
      let ip: { value: string | undefined } | undefined;
      Object.defineProperties(req, {
        body: { value: body.value, writable: true, enumerable: true, configurable: true },
        ip: { get: () => (ip ??= { value: ipOf(req) }).value, enumerable: true, configurable: true },
      });
      try {
        fastPath(req as Request, res as express.Response, (error?: unknown) => handOver(req, res, error));
      } catch (error) {
        handOver(req, res, error);
      }
    });
  };
}
