import type { IncomingMessage, Server as HttpServer } from 'node:http';
import { GraphQLError, type GraphQLFormattedError, type GraphQLSchema } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer } from 'ws';
import type { Logger } from '@agora/core';
import type { AppContext } from '../context.js';
import { RequestContext } from './context.js';
import { DocumentCache } from './document-cache.js';
import { formatErrors, requestError } from './errors.js';

export const GRAPHQL_WS_PATH = '/graphql_socket';

/**
 * Close codes of a refused connection. Forbidden (graphql-ws's own code for a refused
 * `connection_init`): no token, or one that will never work — sign in again. TokenExpired: the
 * access token has expired — refresh it and reconnect (graphql-ws clients treat 4401 as fatal, so
 * the application sees it instead of a retry with the same token); the close reason says `token_expired`.
 */
export const WS_CLOSE = { Forbidden: 4403, TokenExpired: 4401 } as const;

export interface GraphQLWsOptions {
  app: AppContext;
  schema: GraphQLSchema;
  documents: DocumentCache;
  logger: Logger;
  /** The client's address as HTTP requests see it (the trusted-proxy rules apply). */
  ipOf?: (request: IncomingMessage) => string | undefined;
}

/** What graphql-ws keeps per connection beside the socket and upgrade request. */
type ConnectionExtra = { userId?: string };

const BEARER = /^Bearer\s+(\S+)\s*$/i;

/** The access token of `connection_init`: `{token}` as the reference's clients send it, or `{Authorization: "Bearer …"}`. */
export function connectionToken(params: Readonly<Record<string, unknown>> | undefined): string | undefined {
  if (!params) return undefined;
  if (typeof params.token === 'string' && params.token !== '') return params.token;
  const header = params.Authorization ?? params.authorization;
  if (typeof header === 'string') return BEARER.exec(header)?.[1];
  return undefined;
}

/**
 * The graphql-ws protocol on `/graphql_socket`, sharing the HTTP server. Operations of every kind run
 * over it (queries and mutations too); documents come from the same cache, and errors have the same
 * shape, as over HTTP. A connection needs a valid access token in its `connection_init` (as the
 * reference, which refuses anonymous sockets); its user is the caller of every operation on it.
 */
export function attachGraphQLWs(
  server: HttpServer,
  { app, schema, documents, logger, ipOf }: GraphQLWsOptions,
) {
  const wsServer = new WebSocketServer({ server, path: GRAPHQL_WS_PATH });
  const format = (errors: readonly GraphQLError[]) =>
    formatErrors(errors, logger) as unknown as GraphQLFormattedError[];
  const disposable = useServer<Record<string, unknown> | undefined, ConnectionExtra>(
    {
      schema,
      isProd: app.config.nodeEnv === 'production',
      onConnect: async ({ connectionParams, extra }) => {
        const token = connectionToken(connectionParams);
        if (token === undefined) return false;
        const check = await app.sessions.verifyAccess(token);
        if (check.ok) {
          extra.userId = check.userId;
          return true;
        }
        // graphql-ws then tries to close with Forbidden too; ws ignores a second close.
        if (check.reason === 'token_expired') extra.socket.close(WS_CLOSE.TokenExpired, 'token_expired');
        return false;
      },
      context: ({ extra }) =>
        new RequestContext(app, extra.request.headers, { ip: ipOf?.(extra.request), userId: extra.userId }),
      // Returning the arguments skips graphql-ws's own parse and validation: ours are cached and tagged.
      onSubscribe: (_ctx, _id, payload) => {
        const prepared = documents.prepare(payload.query);
        if ('errors' in prepared) return prepared.errors;
        if (!DocumentCache.operation(prepared, payload.operationName)) {
          const message = payload.operationName
            ? `Unknown operation named "${payload.operationName}".`
            : 'Must provide operation name if query contains multiple operations.';
          return [requestError(new GraphQLError(message), 'OPERATION_RESOLUTION_FAILURE')];
        }
        return {
          schema,
          document: prepared.document,
          operationName: payload.operationName,
          variableValues: payload.variables,
        };
      },
      onError: (_ctx, _id, _payload, errors) => format(errors),
      onNext: (_ctx, _id, _payload, _args, result) => {
        if (!result.errors) return undefined;
        // Without data, the variables were refused before execution: the client's error.
        const errors =
          result.data === undefined
            ? result.errors.map((error) => requestError(error, 'BAD_USER_INPUT'))
            : result.errors;
        return { ...result, errors: format(errors) };
      },
    },
    wsServer,
  );
  return {
    async close(): Promise<void> {
      await disposable.dispose();
      await new Promise<void>((resolve) => wsServer.close(() => resolve()));
    },
  };
}
