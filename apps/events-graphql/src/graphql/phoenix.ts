import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { execute, GraphQLError, subscribe, type ExecutionResult } from 'graphql';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import type { JwtSessions } from '@agora/auth';
import type { Logger } from '@agora/core';
import type { GraphQLContext } from './context.js';
import {
  push,
  reply,
  serializerFor,
  type Frame,
  type PhoenixSerializer,
  type Ref,
} from './phoenix-frames.js';
import type { Caller, GraphQLPipeline, PreparedOperation, SocketRequest, WireResult } from './pipeline.js';
import type { SocketRoute } from './socket-routes.js';

/** Where the reference web client's `phoenix` Socket connects: its endpoint `/graphql_socket` plus the transport. */
export const PHOENIX_SOCKET_PATH = '/graphql_socket/websocket';
/** The one channel Absinthe serves: operations are `doc` events on it. */
export const ABSINTHE_CONTROL_TOPIC = '__absinthe__:control';
/** Subscription ids are topics of their own, on which their results are pushed. */
export const ABSINTHE_DOC_TOPIC_PREFIX = '__absinthe__:doc:';

/** Close codes of this wire (RFC 6455 §7.4.1). */
export const PHOENIX_CLOSE = {
  GoingAway: 1001,
  UnsupportedData: 1003,
  InvalidPayload: 1007,
  PolicyViolation: 1008,
} as const;

export interface PhoenixSocketOptions {
  pipeline: GraphQLPipeline;
  sessions: JwtSessions;
  /** The client's address as HTTP requests see it (the trusted-proxy rules apply). */
  ipOf?: (request: IncomingMessage) => string | undefined;
  /** The largest message a client may send (the HTTP body limit). */
  maxPayloadBytes: number;
  /** A socket that sends nothing (not even a heartbeat) for this long is closed; Phoenix's default is 60 s. */
  idleTimeoutMs?: number;
  /** Messages a connection may have waiting behind the one that runs; past it the connection is closed. */
  maxPendingMessages?: number;
  /** Live subscriptions per connection. */
  maxSubscriptions?: number;
}

const DEFAULT_IDLE_TIMEOUT_MS = 60_000;
const DEFAULT_MAX_PENDING_MESSAGES = 64;
const DEFAULT_MAX_SUBSCRIPTIONS = 100;

interface Limits {
  idleTimeoutMs: number;
  maxPendingMessages: number;
  maxSubscriptions: number;
}

/**
 * Absinthe over Phoenix channels, the WebSocket protocol of the reference web client (its `phoenix`
 * Socket with `@framasoft/socket`): a third adapter over the GraphQL pipeline beside Apollo (HTTP) and
 * graphql-ws, with the same schema, context factory, rules and limits, error shape and answer cap.
 *
 * The access token travels as the `token` parameter of the socket URL and is checked before the
 * upgrade, as the reference's socket does: missing or invalid, the upgrade is answered 403 (what
 * Phoenix answers when `connect` refuses). The connection's user is the caller of every operation.
 */
export function phoenixSocketRoute(options: PhoenixSocketOptions): SocketRoute {
  const { pipeline, sessions, ipOf } = options;
  const logger = pipeline.logger.child({ component: 'phoenix-socket' });
  const limits: Limits = {
    idleTimeoutMs: options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS,
    maxPendingMessages: options.maxPendingMessages ?? DEFAULT_MAX_PENDING_MESSAGES,
    maxSubscriptions: options.maxSubscriptions ?? DEFAULT_MAX_SUBSCRIPTIONS,
  };
  const wsServer = new WebSocketServer({ noServer: true, maxPayload: options.maxPayloadBytes });
  const connections = new Set<PhoenixConnection>();
  let closing = false;

  const upgrade = async (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const params = new URL(request.url ?? '/', 'http://socket').searchParams;
    const serializer = serializerFor(params.get('vsn'));
    const token = params.get('token');
    if (!serializer || !token || closing) return refuse(socket, 403, 'Forbidden');
    const check = await sessions.verifyAccess(token);
    if (!check.ok) return refuse(socket, 403, 'Forbidden');
    if (socket.destroyed || closing) return socket.destroy();
    wsServer.handleUpgrade(request, socket, head, (ws) => {
      const caller: Caller = {
        headers: request.headers,
        ip: ipOf?.(request),
        userId: check.userId,
        sessionId: check.sessionId,
      };
      const connection = new PhoenixConnection(ws, serializer, caller, pipeline, logger, limits);
      connections.add(connection);
      ws.once('close', () => connections.delete(connection));
    });
  };

  return {
    path: PHOENIX_SOCKET_PATH,
    handleUpgrade(request, socket, head) {
      // Node has taken its own listeners off an upgraded socket; `ws` adds its own once it takes over.
      socket.on('error', () => socket.destroy());
      upgrade(request, socket, head).catch((error: unknown) => {
        logger.error({ err: error }, 'Phoenix socket upgrade failed');
        refuse(socket, 500, 'Internal Server Error');
      });
    },
    async close() {
      closing = true;
      for (const connection of connections) connection.close(PHOENIX_CLOSE.GoingAway, 'server shutting down');
      await new Promise<void>((resolve) => wsServer.close(() => resolve()));
    },
  };
}

function refuse(socket: Duplex, status: number, reason: string): void {
  if (socket.destroyed) return;
  socket.end(`HTTP/1.1 ${status} ${reason}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
}

/** What the subscription registry keeps: the stream of results, ended by `return`. */
type ResultStream = AsyncGenerator<ExecutionResult, void, void>;

let connectionCount = 0;

/**
 * One client's socket. Messages are handled one at a time in the order they came, as the control
 * channel handles them on Phoenix (a client cannot make one socket run many operations at once);
 * heartbeats are answered at once, as Phoenix's socket process answers them beside its channels.
 */
class PhoenixConnection {
  /** The join ref of the control channel while the client has joined it. */
  private controlJoinRef: Ref | undefined;
  private readonly subscriptions = new Map<string, ResultStream>();
  private readonly idle: NodeJS.Timeout;
  private queue: Promise<void> = Promise.resolve();
  private pending = 0;
  private readonly id = `${++connectionCount}`;
  private closed = false;

  constructor(
    private readonly ws: WebSocket,
    private readonly serializer: PhoenixSerializer,
    private readonly caller: Caller,
    private readonly pipeline: GraphQLPipeline,
    private readonly logger: Logger,
    private readonly limits: Limits,
  ) {
    this.idle = setTimeout(() => this.close(PHOENIX_CLOSE.GoingAway, 'idle'), limits.idleTimeoutMs);
    this.idle.unref();
    ws.on('message', (data, isBinary) => this.receive(data, isBinary));
    // Protocol errors (a frame over the size limit…): ws closes the socket itself.
    ws.on('error', (error) => this.logger.debug({ err: error }, 'Phoenix socket error'));
    ws.on('close', () => this.dispose());
  }

  close(code: number, reason: string): void {
    this.dispose();
    this.ws.close(code, reason);
  }

  private dispose(): void {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.idle);
    this.endSubscriptions();
  }

  private receive(data: RawData, isBinary: boolean): void {
    if (this.closed) return;
    this.idle.refresh();
    if (isBinary) return this.close(PHOENIX_CLOSE.UnsupportedData, 'binary messages are not supported');
    const frame = this.serializer.decode(rawText(data));
    // Without a topic and a ref there is nothing to reply to: the connection ends, as on Phoenix.
    if (!frame) return this.close(PHOENIX_CLOSE.InvalidPayload, 'malformed message');
    if (frame.topic === 'phoenix' && frame.event === 'heartbeat') {
      return this.send(reply(frame, null, 'ok', {}));
    }
    if (this.pending >= this.limits.maxPendingMessages) {
      return this.close(PHOENIX_CLOSE.PolicyViolation, 'too many messages waiting');
    }
    this.pending += 1;
    this.queue = this.queue
      .then(() => this.handle(frame))
      .catch((error: unknown) => {
        this.logger.error({ err: error, event: frame.event }, 'Phoenix socket message failed');
        this.send(reply(frame, this.controlJoinRef ?? null, 'error', { reason: 'internal error' }));
      })
      .then(() => {
        this.pending -= 1;
      });
  }

  private async handle(frame: Frame): Promise<void> {
    if (this.closed) return;
    const { topic, event } = frame;
    if (event === 'phx_join') {
      if (topic !== ABSINTHE_CONTROL_TOPIC) return this.send(reply(frame, null, 'error', UNMATCHED_TOPIC));
      // A second join replaces the first: Phoenix closes the joined channel, and its subscriptions end.
      this.endSubscriptions();
      this.controlJoinRef = frame.ref;
      return this.send(reply(frame, frame.ref, 'ok', {}));
    }
    const joinRef = this.controlJoinRef;
    if (topic !== ABSINTHE_CONTROL_TOPIC || joinRef === undefined) {
      return this.send(reply(frame, null, 'error', UNMATCHED_TOPIC));
    }
    switch (event) {
      case 'doc':
        return this.runDocument(frame, joinRef);
      case 'unsubscribe':
        return this.unsubscribe(frame, joinRef);
      case 'phx_leave':
        this.endSubscriptions();
        this.controlJoinRef = undefined;
        this.send(reply(frame, joinRef, 'ok', {}));
        return this.send(push(topic, 'phx_close', {}, joinRef, joinRef));
      default:
        // Absinthe's channel has no such event (its process would crash); the channel stays joined.
        return this.send(reply(frame, joinRef, 'error', { reason: `unknown event "${event}"` }));
    }
  }

  /** Absinthe's `doc`: `{query, variables}` (and `operationName`, which its clients do not send). */
  private async runDocument(frame: Frame, joinRef: Ref): Promise<void> {
    const request = socketRequest(frame.payload);
    if (request instanceof GraphQLError) return this.replyErrors(frame, joinRef, [request]);
    const prepared = this.pipeline.prepareOperation(request);
    if ('errors' in prepared) return this.replyErrors(frame, joinRef, prepared.errors);
    const contextValue = this.pipeline.createContext(this.caller);
    if (prepared.operation.operation === 'subscription') {
      return this.subscribe(frame, joinRef, prepared, contextValue);
    }
    const result = await execute({ ...prepared.args, contextValue });
    if (this.closed) return;
    this.replyResult(frame, joinRef, this.pipeline.socketResult(result));
  }

  private async subscribe(
    frame: Frame,
    joinRef: Ref,
    prepared: Exclude<PreparedOperation, { errors: unknown }>,
    contextValue: GraphQLContext,
  ): Promise<void> {
    if (this.subscriptions.size >= this.limits.maxSubscriptions) {
      const refusal = new GraphQLError(
        `This socket has ${this.limits.maxSubscriptions} subscriptions, the most it may have: unsubscribe first.`,
        { extensions: { code: 'BAD_REQUEST', http: { status: 400 } } },
      );
      return this.replyErrors(frame, joinRef, [refusal]);
    }
    const stream = await subscribe({ ...prepared.args, contextValue });
    if (!isStream(stream)) return this.replyResult(frame, joinRef, this.pipeline.socketResult(stream));
    // The client left (or joined again) while the subscription was being set up.
    if (this.closed || this.controlJoinRef !== joinRef) {
      void stream.return();
      return;
    }
    const subscriptionId = `${ABSINTHE_DOC_TOPIC_PREFIX}${this.id}:${randomBytes(12).toString('hex')}`;
    this.subscriptions.set(subscriptionId, stream);
    this.send(reply(frame, joinRef, 'ok', { subscriptionId }));
    void this.forward(subscriptionId, stream);
  }

  /** Pushes each result of a subscription on its own topic, as Absinthe publishes `subscription:data`. */
  private async forward(subscriptionId: string, stream: ResultStream): Promise<void> {
    try {
      for await (const result of stream) {
        if (this.subscriptions.get(subscriptionId) !== stream) break;
        const payload = { result: this.pipeline.socketResult(result), subscriptionId };
        this.send(push(subscriptionId, 'subscription:data', payload));
      }
    } catch (error) {
      this.logger.error({ err: error, subscriptionId }, 'subscription stream failed');
    } finally {
      if (this.subscriptions.get(subscriptionId) === stream) this.subscriptions.delete(subscriptionId);
    }
  }

  /** Absinthe answers `{subscriptionId}` whether or not the subscription was still there. */
  private unsubscribe(frame: Frame, joinRef: Ref): void {
    const payload = frame.payload as { subscriptionId?: unknown } | null;
    const subscriptionId = payload && typeof payload === 'object' ? payload.subscriptionId : undefined;
    if (typeof subscriptionId !== 'string') {
      return this.send(reply(frame, joinRef, 'error', { reason: 'subscriptionId is required' }));
    }
    this.endSubscription(subscriptionId);
    this.send(reply(frame, joinRef, 'ok', { subscriptionId }));
  }

  private endSubscription(subscriptionId: string): void {
    const stream = this.subscriptions.get(subscriptionId);
    if (!stream) return;
    this.subscriptions.delete(subscriptionId);
    stream
      .return()
      .catch((error: unknown) => this.logger.error({ err: error }, 'ending a subscription failed'));
  }

  private endSubscriptions(): void {
    for (const subscriptionId of [...this.subscriptions.keys()]) this.endSubscription(subscriptionId);
  }

  /** Absinthe replies `ok` to a result with data (errors beside it or not), `error` to one without. */
  private replyResult(frame: Frame, joinRef: Ref, result: WireResult): void {
    this.send(reply(frame, joinRef, result.data === undefined ? 'error' : 'ok', result));
  }

  private replyErrors(frame: Frame, joinRef: Ref, errors: readonly GraphQLError[]): void {
    this.send(reply(frame, joinRef, 'error', { errors: this.pipeline.formatErrors(errors) }));
  }

  private send(frame: Frame): void {
    if (this.closed || this.ws.readyState !== this.ws.OPEN) return;
    this.ws.send(this.serializer.encode(frame));
  }
}

const UNMATCHED_TOPIC = { reason: 'unmatched topic' };

function rawText(data: RawData): string {
  if (Buffer.isBuffer(data)) return data.toString('utf8');
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data).toString('utf8');
}

/** The request of a `doc` payload, or the error that refuses a payload of the wrong shape. */
function socketRequest(payload: unknown): SocketRequest | GraphQLError {
  const refuse = (message: string) =>
    new GraphQLError(message, { extensions: { code: 'BAD_REQUEST', http: { status: 400 } } });
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) {
    return refuse('The doc payload must be an object with "query" and "variables".');
  }
  const { query = '', variables, operationName } = payload as Record<string, unknown>;
  if (typeof query !== 'string') return refuse('"query" must be a string.');
  if (variables != null && (typeof variables !== 'object' || Array.isArray(variables))) {
    return refuse('"variables" must be an object.');
  }
  if (operationName != null && typeof operationName !== 'string') {
    return refuse('"operationName" must be a string.');
  }
  return {
    query,
    variables: (variables ?? null) as Record<string, unknown> | null,
    operationName: operationName ?? null,
  };
}

function isStream(
  value: ExecutionResult | AsyncGenerator<ExecutionResult, void, void>,
): value is ResultStream {
  return typeof (value as AsyncGenerator<ExecutionResult>)[Symbol.asyncIterator] === 'function';
}
