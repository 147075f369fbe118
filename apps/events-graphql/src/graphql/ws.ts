import type { IncomingMessage } from 'node:http';
import type { GraphQLError, GraphQLFormattedError } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer, type WebSocket } from 'ws';
import type { JwtSessions } from '@agora/auth';
import { GENERIC_FAILURE } from './errors.js';
import type { GraphQLPipeline } from './pipeline.js';
import type { SocketRoute } from './socket-routes.js';

export const GRAPHQL_WS_PATH = '/graphql_socket';

/**
 * Close codes of a refused connection. Forbidden (graphql-ws's own code for a refused
 * `connection_init`): no token, or one that will never work — sign in again. TokenExpired: the
 * access token has expired — refresh it and reconnect (graphql-ws clients treat 4401 as fatal, so
 * the application sees it instead of a retry with the same token); the close reason says `token_expired`.
 */
export const WS_CLOSE = { Forbidden: 4403, TokenExpired: 4401 } as const;

export interface GraphQLWsOptions {
  pipeline: GraphQLPipeline;
  sessions: JwtSessions;
  /** The client's address as HTTP requests see it (the trusted-proxy rules apply). */
  ipOf?: (request: IncomingMessage) => string | undefined;
  /** The largest message a client may send (the HTTP body limit). */
  maxPayloadBytes: number;
}

/** graphql-ws's close code for a failure of the server's own. */
const INTERNAL_ERROR_CLOSE = 4500;

/** Close reasons of internal failures say what HTTP answers say, never the failure's own message. */
function withGenericCloseReasons(socket: WebSocket): void {
  const close = socket.close.bind(socket);
  socket.close = (code?: number, reason?: string | Buffer) =>
    close(code, code === INTERNAL_ERROR_CLOSE ? GENERIC_FAILURE : reason);
}

/** What graphql-ws keeps per connection beside the socket and upgrade request. */
type ConnectionExtra = { userId?: string; sessionId?: string | undefined };

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
 * The graphql-ws protocol on `/graphql_socket`, sharing the HTTP server and built from the same
 * pipeline as Apollo over HTTP: schema, context factory, rules and limits, error shape and answer cap.
 * Operations of every kind run over it (queries and mutations too). A connection needs a valid access
 * token in its `connection_init` (as the reference, which refuses anonymous sockets); its user is the
 * caller of every operation on it.
 */
export function graphQLWsRoute({ pipeline, sessions, ipOf, maxPayloadBytes }: GraphQLWsOptions): SocketRoute {
  const wsServer = new WebSocketServer({ noServer: true, maxPayload: maxPayloadBytes });
  wsServer.on('connection', withGenericCloseReasons);
  const format = (errors: readonly GraphQLError[]) =>
    pipeline.formatErrors(errors) as unknown as GraphQLFormattedError[];
  const disposable = useServer<Record<string, unknown> | undefined, ConnectionExtra>(
    {
      schema: pipeline.schema,
      // Internal failures close with a generic reason (see withGenericCloseReasons) in every environment.
      isProd: true,
      onConnect: async ({ connectionParams, extra }) => {
        const token = connectionToken(connectionParams);
        if (token === undefined) return false;
        const check = await sessions.verifyAccess(token);
        if (check.ok) {
          extra.userId = check.userId;
          extra.sessionId = check.sessionId;
          return true;
        }
        // graphql-ws then tries to close with Forbidden too; ws ignores a second close.
        if (check.reason === 'token_expired') extra.socket.close(WS_CLOSE.TokenExpired, 'token_expired');
        return false;
      },
      context: ({ extra }) =>
        pipeline.createContext({
          headers: extra.request.headers,
          ip: ipOf?.(extra.request),
          userId: extra.userId,
          sessionId: extra.sessionId,
        }),
      // Returning the arguments skips graphql-ws's own parse and validation: the pipeline's are cached and limited.
      onSubscribe: (_ctx, _id, payload) => {
        const prepared = pipeline.prepareOperation(payload);
        return 'errors' in prepared ? prepared.errors : prepared.args;
      },
      onError: (_ctx, _id, _payload, errors) => format(errors),
      // The same error shape and cap on the answer as over HTTP (measured here; graphql-ws serializes it again).
      onNext: (_ctx, _id, _payload, _args, result) =>
        pipeline.socketResult(result) as unknown as typeof result,
    },
    wsServer,
  );
  return {
    path: GRAPHQL_WS_PATH,
    handleUpgrade(request, socket, head) {
      wsServer.handleUpgrade(request, socket, head, (ws) => wsServer.emit('connection', ws, request));
    },
    async close(): Promise<void> {
      await disposable.dispose();
      await new Promise<void>((resolve) => wsServer.close(() => resolve()));
    },
  };
}
