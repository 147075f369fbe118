import * as AbsintheSocket from '@framasoft/socket';
import { Socket, type SocketConnectOption } from 'phoenix';
import WebSocket from 'ws';

/**
 * The reference web client's subscription socket, as it builds it: phoenix's `Socket` on the service's
 * `/graphql_socket` (the client appends `/websocket`) with the access token as the `token` param, and
 * `@framasoft/socket` over it. Node's WebSocket is `ws`, given as the transport. Reconnection is
 * pushed out of the tests' reach, so a refusal stays a refusal.
 */
export function phoenixSocket(
  serverUrl: string,
  params: Record<string, string> = {},
  options: Partial<SocketConnectOption> = {},
): Socket {
  return new Socket(`${serverUrl.replace(/^http/, 'ws')}/graphql_socket`, {
    transport: WebSocket as unknown as SocketConnectOption['transport'],
    params,
    reconnectAfterMs: () => 3_600_000,
    rejoinAfterMs: () => 3_600_000,
    ...options,
  });
}

/** Resolves when the socket has opened; rejects with the transport's error if it cannot. */
export function connected(socket: Socket): Promise<void> {
  return new Promise((resolve, reject) => {
    socket.onOpen(() => resolve());
    socket.onError((error) => reject(error instanceof Error ? error : new Error(String(error))));
    socket.connect();
  });
}

export interface AbsintheOutcome<Result> {
  result?: Result;
  /** The client's abort or error: a refused request (`request: …`) or a closed connection. */
  error?: Error;
}

/** Sends one query or mutation through the Absinthe socket and waits for its one result. */
export function absintheRequest<Result = { data?: Record<string, unknown>; errors?: unknown[] }>(
  absinthe: AbsintheSocket.AbsintheSocket,
  operation: string,
  variables?: Record<string, unknown>,
): Promise<AbsintheOutcome<Result>> {
  return new Promise((resolve) => {
    const notifier = AbsintheSocket.send(absinthe, { operation, variables });
    AbsintheSocket.observe<Result>(absinthe, notifier, {
      onResult: (result) => resolve({ result }),
      onAbort: (error) => resolve({ error }),
      onError: (error) => resolve({ error }),
    });
  });
}

/** A subscription through the Absinthe socket: its id once the server accepted it, and the results pushed since. */
export interface AbsintheSubscription<Result> {
  /** Resolves with the subscription's id (`__absinthe__:doc:…`), or rejects with the client's error. */
  readonly started: Promise<string>;
  readonly results: Result[];
  /** Resolves with the next result pushed (or one already waiting). */
  next(timeoutMs?: number): Promise<Result>;
  /** Cancels it as the client does when a component unmounts: an `unsubscribe` event. */
  cancel(): void;
}

export function absintheSubscribe<Result = { data?: Record<string, unknown> }>(
  absinthe: AbsintheSocket.AbsintheSocket,
  operation: string,
  variables?: Record<string, unknown>,
): AbsintheSubscription<Result> {
  const results: Result[] = [];
  let read = 0;
  let waiting: (() => void) | undefined;
  const notifier = AbsintheSocket.send(absinthe, { operation, variables });
  const started = new Promise<string>((resolve, reject) => {
    AbsintheSocket.observe<Result>(absinthe, notifier, {
      onStart: (started) => resolve(started.subscriptionId ?? ''),
      onResult: (result) => {
        results.push(result);
        waiting?.();
      },
      onAbort: reject,
      onError: reject,
    });
  });
  return {
    started,
    results,
    async next(timeoutMs = 15_000) {
      while (read >= results.length) {
        await new Promise<void>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error('no subscription data in time')), timeoutMs);
          waiting = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
      return results[read++]!;
    },
    cancel() {
      const current = absinthe.notifiers.find((each) => each.request === notifier.request);
      if (current) AbsintheSocket.cancel(absinthe, current);
    },
  };
}

/**
 * A bare WebSocket on the Phoenix endpoint, for what no well-behaved client sends: it collects every
 * message and tells how the connection ended (or why the upgrade was refused).
 */
export class RawPhoenixSocket {
  readonly messages: unknown[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;
  readonly opened: Promise<void>;
  /** The HTTP status of a refused upgrade. */
  readonly refused: Promise<number | undefined>;
  private readonly ws: WebSocket;
  private waiting: (() => void) | undefined;

  constructor(serverUrl: string, params: Record<string, string>) {
    const query = new URLSearchParams(params).toString();
    this.ws = new WebSocket(`${serverUrl.replace(/^http/, 'ws')}/graphql_socket/websocket?${query}`);
    this.ws.on('message', (data) => {
      this.messages.push(JSON.parse(String(data)));
      this.waiting?.();
    });
    this.ws.on('error', () => undefined);
    this.opened = new Promise((resolve, reject) => {
      this.ws.once('open', () => resolve());
      this.ws.once('close', () => reject(new Error('closed before it opened')));
    });
    this.opened.catch(() => undefined);
    this.refused = new Promise((resolve) => {
      this.ws.once('unexpected-response', (_request, response) => {
        resolve(response.statusCode);
        response.resume();
        this.ws.terminate();
      });
      this.ws.once('open', () => resolve(undefined));
    });
    this.closed = new Promise((resolve) =>
      this.ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() })),
    );
  }

  send(message: unknown): void {
    this.ws.send(typeof message === 'string' ? message : JSON.stringify(message));
  }

  sendBinary(bytes: Buffer): void {
    this.ws.send(bytes, { binary: true });
  }

  /** The first message (from the start) that `match` accepts, waiting for it if need be. */
  async receive(match: (message: unknown) => boolean, timeoutMs = 15_000): Promise<unknown> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.messages.find(match);
      if (found !== undefined) return found;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no matching message; received ${JSON.stringify(this.messages)}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiting = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  }

  close(): void {
    this.ws.close();
  }
}
