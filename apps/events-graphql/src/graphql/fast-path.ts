import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { execute, type ExecutionResult, type GraphQLSchema } from 'graphql';
import type { Logger } from '@agora/core';
import type { GraphQLContext } from './context.js';
import { DocumentCache } from './document-cache.js';
import { formatErrors } from './errors.js';
import { ResponseCache, type StateToken } from './response-cache.js';

interface PlainRequest {
  query: string;
  variables?: Record<string, unknown> | null;
  operationName?: string | null;
}

function isPlainRequest(body: unknown): body is PlainRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return false;
  const { query, variables, operationName, extensions } = body as Record<string, unknown>;
  return (
    typeof query === 'string' &&
    (variables === undefined ||
      variables === null ||
      (typeof variables === 'object' && !Array.isArray(variables))) &&
    (operationName === undefined || operationName === null || typeof operationName === 'string') &&
    // Persisted-query (and other) extensions are Apollo's to interpret.
    extensions === undefined
  );
}

/** Whether Apollo would answer this Accept header with plain `application/json`, as we do. */
function acceptsPlainJson(accept: string | undefined): boolean {
  if (accept === undefined) return true;
  if (accept.includes('graphql-response') || accept.includes('callbackSpec')) return false;
  return accept.includes('application/json') || accept.includes('*/*') || accept.includes('application/*');
}

function isPromise<T>(value: T | Promise<T>): value is Promise<T> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

export interface FastPathOptions {
  schema: GraphQLSchema;
  documents: DocumentCache;
  createContext: (req: Request) => GraphQLContext;
  /** Root fields whose responses may be reused (see ResponseCache). */
  stateTokens: ReadonlyMap<string, StateToken>;
  logger: Logger;
}

/**
 * Serves the common case of POST /api without Apollo's per-request machinery (plugin hooks, query
 * hashing, header maps, content negotiation): a JSON query or mutation whose document is known valid
 * is executed by graphql-js directly, and its result is sent in exactly the bytes Apollo would send.
 * Everything else (invalid documents, unknown operations, bad variables, batches, persisted queries,
 * other media types) falls through to Apollo, so every error is produced by one pipeline.
 */
export function graphqlFastPath(options: FastPathOptions): RequestHandler {
  const { schema, documents, createContext, logger } = options;
  const responses = new ResponseCache(options.stateTokens);
  const sendBody = (res: Response, body: string) => {
    res.statusCode = 200;
    res.setHeader('content-type', 'application/json; charset=utf-8');
    res.setHeader('content-length', Buffer.byteLength(body));
    res.end(body);
  };
  return (req: Request, res: Response, next: NextFunction) => {
    const body: unknown = req.body;
    if (!isPlainRequest(body) || !acceptsPlainJson(req.headers.accept)) return next();
    const prepared = documents.prepare(body.query);
    if ('errors' in prepared) return next();
    const operation = DocumentCache.operation(prepared, body.operationName);
    if (!operation || operation.operation === 'subscription') return next();

    const contextValue = createContext(req);
    const plan = responses.plan(prepared.document, operation);
    const variablesKey = plan && body.variables ? JSON.stringify(body.variables) : '';
    const cached = plan && responses.lookup(plan, variablesKey, contextValue);
    if (cached?.body !== undefined) return sendBody(res, cached.body);

    const send = (result: ExecutionResult) => {
      // No data means the variables were refused before any resolver ran: Apollo answers that.
      if (result.data === undefined) return next();
      const errors = result.errors && formatErrors(result.errors, logger);
      // The same bytes Apollo sends: its field order, its trailing newline.
      const json = JSON.stringify({ errors, data: result.data, extensions: result.extensions }) + '\n';
      if (plan && cached && !result.errors) responses.store(plan, variablesKey, cached.state, json);
      sendBody(res, json);
    };

    let result: ReturnType<typeof execute>;
    try {
      result = execute({
        schema,
        document: prepared.document,
        contextValue,
        variableValues: body.variables ?? undefined,
        operationName: body.operationName ?? undefined,
      });
    } catch (error) {
      return next(error);
    }
    if (isPromise(result)) result.then(send, next);
    else send(result);
  };
}
