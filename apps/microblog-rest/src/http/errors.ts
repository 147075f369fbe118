import { STATUS_CODES } from 'node:http';
import type { ErrorRequestHandler, RequestHandler } from 'express';
import { isAppError, RateLimited, type AppError, type Logger } from '@agora/core';
import { validationCode } from './validation-codes.js';

/** The REST error body (Mastodon's Error entity). */
export interface ErrorJson {
  error: string;
  error_description?: string;
  /** Per-field problems of a 422 (Rails' message and masto.js's code), as masto.js reads them. */
  details?: Record<string, Array<{ error: string; description: string }>>;
}

/**
 * A failure of the HTTP exchange itself (unparseable body, too large, unsupported media type, wrong
 * method), raised only by this folder. Domain failures use the closed error set of @agora/core.
 */
export class TransportError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly description?: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'TransportError';
  }
}

/** What a body-parser / http-errors error looks like: a status, and `expose` when it is the client's fault. */
interface HttpLikeError {
  status?: unknown;
  statusCode?: unknown;
  expose?: unknown;
  type?: unknown;
  limit?: unknown;
  message?: unknown;
}

// body-parser's error types → our messages (theirs are fine for logs, not for clients).
const BODY_ERRORS: Record<string, { status: number; error: string }> = {
  'entity.parse.failed': { status: 400, error: 'Malformed request body' },
  'entity.too.large': { status: 413, error: 'Request body too large' },
  'parameters.too.many': { status: 413, error: 'Too many parameters in the request body' },
  'encoding.unsupported': { status: 415, error: 'Unsupported content encoding' },
  'charset.unsupported': { status: 415, error: 'Unsupported charset' },
  'request.aborted': { status: 400, error: 'Request aborted' },
  'request.size.invalid': { status: 400, error: 'Request body size did not match Content-Length' },
};

// Only the path is logged: the query string may carry `access_token`.
/** The one place errors become HTTP responses: status + `{"error": ...}`, never a stack trace. */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (error: unknown, req, res, next) => {
    if (res.headersSent) {
      // Too late for a JSON error: let Express end the connection.
      next(error);
      return;
    }
    const { status, body, headers } = errorResponse(error);
    if (status >= 500) {
      logger.error({ err: error, method: req.method, path: req.path }, 'request failed');
    }
    for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
    res.status(status).json(body);
  };
}

/** What the error handler answers for `error`: a status, the `{"error"}` body and extra headers. */
export function errorResponse(error: unknown): {
  status: number;
  body: ErrorJson;
  headers: Record<string, string>;
} {
  if (error instanceof TransportError) {
    return {
      status: error.status,
      body: withDescription({ error: error.message }, error.description),
      headers: error.headers,
    };
  }
  if (isAppError(error)) return appErrorResponse(error);
  const http = (typeof error === 'object' && error !== null ? error : {}) as HttpLikeError;
  const known = typeof http.type === 'string' ? BODY_ERRORS[http.type] : undefined;
  if (known) {
    const description =
      known.status === 413 && typeof http.limit === 'number'
        ? `The limit is ${http.limit} bytes`
        : http.type === 'entity.parse.failed' && typeof http.message === 'string'
          ? http.message
          : undefined;
    return { status: known.status, body: withDescription({ error: known.error }, description), headers: {} };
  }
  // Other client errors raised by Express or its parsers (a malformed URL escape, too-deep nesting…).
  const status =
    typeof http.status === 'number'
      ? http.status
      : typeof http.statusCode === 'number'
        ? http.statusCode
        : 500;
  if (status >= 400 && status < 500) {
    // http-errors marks messages safe to show with `expose`; others get the status text.
    const message =
      http.expose === true && typeof http.message === 'string' ? http.message : STATUS_CODES[status];
    return { status, body: { error: message ?? 'Bad request' }, headers: {} };
  }
  return { status: 500, body: { error: 'Internal server error' }, headers: {} };
}

function appErrorResponse(error: AppError): {
  status: number;
  body: ErrorJson;
  headers: Record<string, string>;
} {
  const headers: Record<string, string> = {};
  if (error instanceof RateLimited && error.retryAfterSeconds !== undefined) {
    headers['Retry-After'] = String(error.retryAfterSeconds);
  }
  if (error.kind === 'Internal') return { status: 500, body: { error: 'Internal server error' }, headers };
  const body: ErrorJson = { error: error.message };
  if (error.fields) {
    body.details = Object.fromEntries(
      Object.entries(error.fields).map(([field, messages]) => [
        field,
        messages.map((description) => ({ error: validationCode(description), description })),
      ]),
    );
  }
  return { status: error.status, body, headers };
}

function withDescription(body: ErrorJson, description: string | undefined): ErrorJson {
  return description === undefined ? body : { ...body, error_description: description };
}

/** The last handler under /api (and elsewhere): a JSON 404 instead of Express's HTML page. */
export function notFound(message: string): RequestHandler {
  return (_req, res) => {
    res.status(404).json({ error: message } satisfies ErrorJson);
  };
}

/** Ends a route that exists but not for this method: 405 with `Allow`. */
export function methodNotAllowed(allowed: readonly string[]): RequestHandler {
  const allow = [...new Set([...allowed, ...(allowed.includes('GET') ? ['HEAD'] : []), 'OPTIONS'])].join(
    ', ',
  );
  return (req, _res, next) => {
    next(new TransportError(405, `Method ${req.method} is not allowed here`, undefined, { Allow: allow }));
  };
}
