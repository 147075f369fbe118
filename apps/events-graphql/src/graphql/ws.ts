import type { Server as HttpServer } from 'node:http';
import { GraphQLError, type GraphQLFormattedError, type GraphQLSchema } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer } from 'ws';
import type { Logger } from '@agora/core';
import type { AppContext } from '../context.js';
import { RequestContext } from './context.js';
import { DocumentCache } from './document-cache.js';
import { formatErrors, requestError } from './errors.js';

export const GRAPHQL_WS_PATH = '/graphql_socket';

export interface GraphQLWsOptions {
  app: AppContext;
  schema: GraphQLSchema;
  documents: DocumentCache;
  logger: Logger;
}

/**
 * The graphql-ws protocol on `/graphql_socket`, sharing the HTTP server. Operations of every kind run
 * over it (queries and mutations too); documents come from the same cache, and errors have the same
 * shape, as over HTTP. Connections are accepted as they come: the `token` connection parameter is
 * for the authentication module to check.
 */
export function attachGraphQLWs(server: HttpServer, { app, schema, documents, logger }: GraphQLWsOptions) {
  const wsServer = new WebSocketServer({ server, path: GRAPHQL_WS_PATH });
  const format = (errors: readonly GraphQLError[]) =>
    formatErrors(errors, logger) as unknown as GraphQLFormattedError[];
  const disposable = useServer(
    {
      schema,
      isProd: app.config.nodeEnv === 'production',
      context: ({ extra }) => new RequestContext(app, extra.request.headers),
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
