import type { Response } from 'express';
import { GraphQLError, type SourceLocation } from 'graphql';
import { AppError, BadInput, type Logger } from '@agora/core';
import { referenceArgumentMessage } from './invalid-arguments.js';

/**
 * One error as the reference API sends it: its extra keys at the top level of the error (clients read
 * `code` and `status_code` there), mirrored in `extensions.code` for GraphQL-aware clients.
 */
export interface WireError {
  /**
   * A list of messages for a field's validation errors, as the reference sends them; for a field that
   * embeds others (an event's `options`), a map of their names to their lists.
   */
  message: string | string[] | Record<string, string[]>;
  locations?: readonly SourceLocation[];
  path?: ReadonlyArray<string | number>;
  code: string;
  status_code: number;
  field?: string;
  extensions: { code: string };
}

/** What clients are told of a failure of the server's own, on every wire. */
export const GENERIC_FAILURE = 'Something went wrong';

/**
 * Errors about the request itself, tagged with Apollo Server's codes (Apollo tags them itself; our
 * other paths tag with `requestError`). Their message is the client's to read.
 */
const REQUEST_ERROR_CODES = new Set([
  'GRAPHQL_PARSE_FAILED',
  'GRAPHQL_VALIDATION_FAILED',
  'BAD_USER_INPUT',
  'OPERATION_RESOLUTION_FAILURE',
  'BAD_REQUEST',
  'PERSISTED_QUERY_NOT_FOUND',
  'PERSISTED_QUERY_NOT_SUPPORTED',
  // The pipeline's limits (limits.ts): the answer would be larger than the server sends.
  'RESPONSE_TOO_LARGE',
]);

/** The codes of errors the reference answers with HTTP 200: the document or its variables are wrong. */
const GRAPHQL_LEVEL_CODES = new Set([
  'graphql_parse_failed',
  'graphql_validation_failed',
  'bad_user_input',
  'operation_resolution_failure',
]);

export type RequestErrorCode =
  'GRAPHQL_PARSE_FAILED' | 'GRAPHQL_VALIDATION_FAILED' | 'BAD_USER_INPUT' | 'OPERATION_RESOLUTION_FAILURE';

/** Tags a graphql-js error about the request, as Apollo Server tags the same errors. */
export function requestError(error: GraphQLError, code: RequestErrorCode): GraphQLError {
  return new GraphQLError(error.message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    originalError: error.originalError,
    extensions: { ...error.extensions, code },
  });
}

// Key order as the reference: message, locations, path, code, status_code, field.
function wire(
  message: WireError['message'],
  code: string,
  status: number,
  error: GraphQLError | undefined,
  field?: string,
): WireError {
  return {
    message,
    ...(error?.locations ? { locations: error.locations } : {}),
    ...(error?.path ? { path: error.path } : {}),
    code,
    status_code: status,
    ...(field === undefined ? {} : { field }),
    extensions: { code },
  };
}

/**
 * The reference reports business refusals given as plain strings ("Too many requests", "The current
 * password is invalid"…) as `unknown_error` with status_code 500, whatever the error's kind.
 */
const REFUSAL_CODE = 'unknown_error';
/** The code of a BadInput raised without one of its own. */
const PLAIN_BAD_INPUT_CODE = new BadInput('').code;

/** Code and status_code of an application error as the reference sends them. */
function wireCode(error: AppError): { code: string; status: number } {
  // Rate limits and the re-send guard are plain-string refusals there too ("Too many requests"), and so
  // is a BadInput with neither a code nor fields: how the shared packages refuse (issue 11 §7).
  if (error.kind === 'RateLimited' || error.code === REFUSAL_CODE || isPlainRefusal(error)) {
    return { code: REFUSAL_CODE, status: 500 };
  }
  return { code: error.code, status: error.status };
}

function isPlainRefusal(error: AppError): boolean {
  return (
    error.kind === 'BadInput' &&
    error.code === PLAIN_BAD_INPUT_CODE &&
    Object.keys(error.fields ?? {}).length === 0
  );
}

/** Field errors by field; `options.maximum_attendee_capacity` is reported as the map of `options`. */
function fieldMessages(fields: Record<string, string[]>): Record<string, WireError['message']> {
  const result: Record<string, string[] | Record<string, string[]>> = {};
  for (const [field, messages] of Object.entries(fields)) {
    const dot = field.indexOf('.');
    if (dot < 0) {
      result[field] = messages;
      continue;
    }
    const parent = field.slice(0, dot);
    const embedded = result[parent];
    const map = embedded && !Array.isArray(embedded) ? embedded : (result[parent] = {});
    map[field.slice(dot + 1)] = messages;
  }
  return result;
}

/**
 * Maps anything a GraphQL operation failed with to the reference's error shape: the closed set of
 * application errors as they are (a BadInput with field details becomes one error per field), errors
 * about the request with their own message, and anything else as a logged, generic 500.
 */
export function formatError(error: unknown, logger: Logger): WireError[] {
  const graphQLError = error instanceof GraphQLError ? error : undefined;
  const original = graphQLError ? (graphQLError.originalError ?? graphQLError) : error;

  if (original instanceof AppError) {
    if (original.kind === 'Internal') {
      logger.error({ err: original.cause ?? original, path: graphQLError?.path }, 'GraphQL operation failed');
    }
    const { code, status } = wireCode(original);
    if (original.fields && Object.keys(original.fields).length > 0) {
      return Object.entries(fieldMessages(original.fields)).map(([field, messages]) =>
        wire(messages, code, status, graphQLError, field),
      );
    }
    return [wire(original.message, code, status, graphQLError)];
  }

  const code = graphQLError?.extensions.code;
  const http = graphQLError?.extensions.http as { status?: number } | undefined;
  if (graphQLError && typeof code === 'string' && REQUEST_ERROR_CODES.has(code)) {
    const message = referenceArgumentMessage(graphQLError) ?? graphQLError.message;
    return [wire(message, code.toLowerCase(), http?.status ?? 400, graphQLError)];
  }
  // Apollo's refusals of the request itself that carry a client status but no code (a persisted-query
  // hash that does not match its query): the client's error, with Apollo's message.
  if (graphQLError && code === undefined && graphQLError.originalError === undefined) {
    const status = http?.status;
    if (status !== undefined && status >= 400 && status < 500) {
      return [wire(graphQLError.message, 'bad_request', status, graphQLError)];
    }
  }

  logger.error(
    { err: original instanceof Error ? original : new Error(String(original)), path: graphQLError?.path },
    'unexpected error in a GraphQL operation',
  );
  return [wire(GENERIC_FAILURE, 'unknown', 500, graphQLError)];
}

export function formatErrors(errors: readonly unknown[], logger: Logger): WireError[] {
  return errors.flatMap((error) => formatError(error, logger));
}

/** True when the errors are about the document or its variables, which the reference answers with 200. */
export function isGraphQLLevelFailure(errors: readonly WireError[]): boolean {
  return errors.length > 0 && errors.every((error) => GRAPHQL_LEVEL_CODES.has(error.code));
}

/** A GraphQL-shaped error body for a request that never reached GraphQL (bad JSON, wrong method…). */
export function sendHttpError(res: Response, status: number, code: string, message: string): void {
  if (res.headersSent) return;
  res
    .status(status)
    .type('application/json')
    .send(JSON.stringify({ errors: [wire(message, code, status, undefined)] }) + '\n');
}

/**
 * The same body for an answer the HTTP server writes itself (a 408 to a silent client, unparseable
 * HTTP), its code derived from the status text: "Request Timeout" → `request_timeout`.
 */
export function httpErrorBody(status: number, message: string): string {
  const code = message.toLowerCase().replace(/[^a-z]+/g, '_');
  return JSON.stringify({ errors: [wire(message, code, status, undefined)] }) + '\n';
}

/**
 * The reference's answer to a present but unusable access token, before GraphQL runs (clients read the
 * 401 as "refresh the token and retry"; CORS lets browsers see it).
 */
export function sendInvalidToken(res: Response, reason: string): void {
  if (res.headersSent) return;
  res
    .status(401)
    .set('access-control-allow-origin', '*')
    .type('application/json')
    .send(JSON.stringify({ message: 'invalid_token', details: `:${reason}` }));
}
