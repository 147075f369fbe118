import cors from 'cors';
import express, { Router, type ErrorRequestHandler, type RequestHandler } from 'express';
import { isMultipart, multipartGraphQL, type MultipartOptions } from '../http/uploads.js';
import { sendHttpError } from './errors.js';

export interface GraphQLHttpOptions {
  /** Apollo's Express handler; it exists once the server has started. */
  apollo: () => RequestHandler | undefined;
  bodyLimitBytes: number;
  /** Multipart requests carrying files (absent: refused as any other non-JSON body). */
  uploads?: MultipartOptions;
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
      // A body that does not decode as its Content-Encoding says (gzip that is not gzip).
      if (status === 400) {
        return sendHttpError(res, 400, 'bad_request', 'The request body could not be decoded.');
      }
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
export function graphqlHttpRouter(options: GraphQLHttpOptions): Router {
  const router = Router();
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
  const json = express.json({ limit: options.bodyLimitBytes });
  router.post('/api', requireJson(options.uploads !== undefined), json, apollo);
  // Only multipart requests get here (the JSON route passes them on): files first, then the same path.
  if (options.uploads) router.post('/api', multipartGraphQL(options.uploads), apollo);
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
