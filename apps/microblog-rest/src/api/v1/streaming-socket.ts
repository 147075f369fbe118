import type { IncomingMessage, Server as HttpServer } from 'node:http';
import type { Duplex } from 'node:stream';
import { STATUS_CODES } from 'node:http';
import type { Logger } from '@agora/core';
import { WebSocketServer, type WebSocket } from 'ws';
import type { AccountService } from '../../modules/accounts/account.service.js';
import type { OAuthService } from '../../modules/oauth/oauth.service.js';
import { streamingToken, streamingViewer } from '../../modules/streaming/streaming-auth.js';
import type { Connection, StreamingService, StreamSink } from '../../modules/streaming/streaming.service.js';
import { parseStream, StreamRefusal, type Stream } from '../../modules/streaming/streams.js';

/** The multiplexed socket's path (not-shown.md §2.6). */
export const STREAMING_SOCKET_PATH = '/api/v1/streaming';
/** A client message is a small JSON object; anything bigger closes the socket (1009). */
const MAX_MESSAGE_BYTES = 16 * 1024;
const PING_INTERVAL_MS = 30_000;

export interface StreamingSocketDeps {
  streaming: StreamingService;
  oauth: OAuthService;
  accounts: AccountService;
  logger: Logger;
}

/**
 * `/api/v1/streaming` over WebSocket on the HTTP server: the token from the `Authorization` header,
 * `access_token` or the offered subprotocol (echoed in the 101, or Node and browsers abort); then
 * `{"type":"subscribe"|"unsubscribe","stream":…,"tag"|"list":…}` messages, or `?stream=` at once.
 * A refused handshake is an HTTP status with `{"error"}`; a refused message, an error frame
 * `{"error","status"}` on the socket, which stays open.
 */
export function attachStreamingSocket(
  server: HttpServer,
  deps: StreamingSocketDeps,
): { close(): Promise<void> } {
  const { streaming, logger } = deps;
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: MAX_MESSAGE_BYTES,
    // Never negotiated: a deflated frame would be compressed per socket (its context is the
    // socket's), where an uncompressed one is the same shared bytes for every socket (ADR 0043).
    perMessageDeflate: false,
    // masto.js offers the token as the only subprotocol: it must come back.
    handleProtocols: (protocols) => protocols.values().next().value ?? false,
  });
  const alive = new WeakMap<WebSocket, boolean>();
  const ping = setInterval(() => {
    for (const ws of wss.clients) {
      if (alive.get(ws) === false) {
        ws.terminate();
        continue;
      }
      alive.set(ws, false);
      ws.ping();
    }
  }, PING_INTERVAL_MS).unref();

  const onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    const url = new URL(request.url ?? '/', 'http://streaming.invalid');
    if (url.pathname.replace(/\/+$/, '') !== STREAMING_SOCKET_PATH) {
      refuse(socket, 404, 'Not found');
      return;
    }
    void (async () => {
      const viewer = await streamingViewer(deps, streamingToken(request, url.searchParams, true));
      streaming.assertCanOpen(viewer.tokenId);
      wss.handleUpgrade(request, socket, head, (ws) => {
        alive.set(ws, true);
        ws.on('pong', () => alive.set(ws, true));
        serve(ws, url.searchParams, () => streaming.open(viewer, socketSink(ws, streaming)));
      });
    })().catch((error: unknown) => {
      if (error instanceof StreamRefusal) refuse(socket, error.status, error.message);
      else {
        logger.error({ err: error }, 'a streaming handshake failed');
        refuse(socket, 500, 'Internal server error');
      }
    });
  };

  const serve = (ws: WebSocket, query: URLSearchParams, open: () => Connection) => {
    let connection: Connection;
    try {
      connection = open();
    } catch (error) {
      // Another handshake of the same token took the last place meanwhile.
      const refusal =
        error instanceof StreamRefusal ? error : new StreamRefusal('Internal server error', 500);
      sendError(ws, refusal);
      ws.close(1008, 'refused');
      return;
    }
    ws.on('close', () => connection.close());
    ws.on('error', () => connection.close());
    const run = (action: 'subscribe' | 'unsubscribe', stream: Stream) => {
      if (action === 'unsubscribe') {
        connection.unsubscribe(stream);
        return;
      }
      connection.subscribe(stream).catch((error: unknown) => {
        if (error instanceof StreamRefusal) sendError(ws, error);
        else {
          logger.error({ err: error }, 'a streaming subscription failed');
          sendError(ws, new StreamRefusal('Internal server error', 500));
        }
      });
    };
    const initial = query.get('stream');
    if (initial !== null) {
      try {
        run('subscribe', parseStream(initial, Object.fromEntries(query)));
      } catch (error) {
        if (error instanceof StreamRefusal) sendError(ws, error);
      }
    }
    ws.on('message', (data, isBinary) => {
      try {
        const message = parseMessage(isBinary ? null : rawText(data));
        const { type, stream, ...params } = message;
        if (type !== 'subscribe' && type !== 'unsubscribe') {
          throw new StreamRefusal('Unknown message type: use "subscribe" or "unsubscribe"', 400);
        }
        run(type, parseStream(stream, params));
      } catch (error) {
        if (error instanceof StreamRefusal) sendError(ws, error);
        else throw error;
      }
    });
  };

  server.on('upgrade', onUpgrade);
  return {
    async close() {
      server.off('upgrade', onUpgrade);
      clearInterval(ping);
      await streaming.close();
      for (const ws of wss.clients) ws.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}

/**
 * Frames to a socket. A client whose unsent data passes the bound is too slow to follow: the socket
 * is cut (no close handshake: it would queue behind the backlog), its streams end.
 */
function socketSink(ws: WebSocket, limits: { maxBufferedBytes: number }): StreamSink {
  return {
    send(frame, label) {
      if (ws.readyState !== ws.OPEN) return;
      if (ws.bufferedAmount > limits.maxBufferedBytes) {
        ws.terminate();
        return;
      }
      // The frame's bytes are shared by every socket it goes to: sent as text, never copied here.
      ws.send(frame.forSocket(label), { binary: false });
    },
    end() {
      ws.close(1001, 'server stopping');
    },
  };
}

function rawText(data: unknown): string | null {
  if (typeof data === 'string') return data;
  if (Buffer.isBuffer(data)) return data.toString('utf8');
  if (Array.isArray(data)) return Buffer.concat(data as Buffer[]).toString('utf8');
  if (data instanceof ArrayBuffer) return Buffer.from(data).toString('utf8');
  return null;
}

/** A client message: a JSON object. Errors: StreamRefusal 400. */
function parseMessage(text: string | null): Record<string, unknown> {
  let value: unknown;
  try {
    value = text === null ? undefined : JSON.parse(text);
  } catch {
    value = undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new StreamRefusal('Malformed message: expected a JSON object', 400);
  }
  return value as Record<string, unknown>;
}

function sendError(ws: WebSocket, refusal: StreamRefusal): void {
  if (ws.readyState === ws.OPEN) ws.send(JSON.stringify({ error: refusal.message, status: refusal.status }));
}

/** Answers a handshake with an HTTP error (the socket never opens). */
function refuse(socket: Duplex, status: number, message: string): void {
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const body = JSON.stringify({ error: message });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
