import {
  createServer,
  STATUS_CODES,
  type IncomingMessage,
  type RequestListener,
  type Server,
  type ServerResponse,
} from 'node:http';
import { readFile } from 'node:fs/promises';
import { createServer as createHttpsServer, Server as HttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';

/** How long a client may take to send its request, in milliseconds (`HTTP_*_TIMEOUT_MS`). */
export interface HttpTimeouts {
  /** From a new connection, or the first byte of a kept-alive one's next request, to the end of the headers. */
  headersMs: number;
  /** The longest silence while a request body is still due; then a 408 and the connection closes. */
  bodyIdleMs: number;
  /** From the first byte to the last of one request, body included: room for uploads on slow links. */
  requestMs: number;
}

export interface HttpServerOptions {
  timeouts: HttpTimeouts;
  /** An error answered outside the app (a timeout, unparseable HTTP), in the API's own format. */
  errorBody(status: number, message: string): { contentType: string; body: string };
  /** Serve HTTPS with this certificate (chain) and key, PEM; absent: plain HTTP. */
  tls?: TlsCredentials | null;
}

export interface TlsCredentials {
  cert: Buffer;
  key: Buffer;
}

/** Reads the PEM files a config names (`config.http.tls`); null stays null (plain HTTP). */
export async function readTlsCredentials(
  files: { certFile: string; keyFile: string } | null,
): Promise<TlsCredentials | null> {
  if (!files) return null;
  const [cert, key] = await Promise.all([readFile(files.certFile), readFile(files.keyFile)]);
  return { cert, key };
}

/**
 * node:http's server with bounded patience for slow and silent clients (issue 12 §3). Node itself
 * bounds the headers and the whole request, but checks only every 30 s by default, and nothing
 * notices a body that stops arriving until the whole-request limit (5 min by default): a watcher
 * does. Upgraded (WebSocket) connections leave HTTP parsing behind and none of this applies to them.
 */
export function createHttpServer(listener: RequestListener, options: HttpServerOptions): Server {
  const { headersMs, bodyIdleMs, requestMs } = options.timeouts;
  const httpOptions = {
    // Node refuses a headers limit above the request limit.
    headersTimeout: Math.min(headersMs, requestMs),
    requestTimeout: requestMs,
    // The limits above are enforced at this period: a tenth of the shortest, at most a second.
    connectionsCheckingInterval: checkPeriod(Math.min(headersMs, requestMs)),
  };
  // node:https's server is node:http's over TLS: the same limits and events apply.
  const server: Server = options.tls
    ? createHttpsServer({ ...httpOptions, cert: options.tls.cert, key: options.tls.key }, listener)
    : createServer(httpOptions, listener);
  const bodies = new BodyWatch(bodyIdleMs, options.errorBody);
  server.on('request', (req: IncomingMessage, res: ServerResponse) => bodies.add(req, res));
  server.on('listening', () => bodies.start());
  server.on('close', () => bodies.stop());
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    if (error.code === 'ECONNRESET' || !socket.writable || bodies.answered(socket)) {
      socket.destroy();
      return;
    }
    const status = CLIENT_ERROR_STATUS[error.code ?? ''] ?? 400;
    const { contentType, body } = options.errorBody(status, STATUS_CODES[status] ?? 'Bad Request');
    const head =
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: ${contentType}\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n`;
    closeAfter(socket, head + body);
  });
  return server;
}

// node:http's own answers to these parser errors; anything else is a 400.
const CLIENT_ERROR_STATUS: Record<string, number> = {
  ERR_HTTP_REQUEST_TIMEOUT: 408,
  HPE_HEADER_OVERFLOW: 431,
  HPE_CHUNK_EXTENSIONS_OVERFLOW: 413,
};

function checkPeriod(shortestMs: number): number {
  return Math.max(10, Math.min(1_000, Math.floor(shortestMs / 10)));
}

/** Writes the last bytes, then closes; a client that does not read them is cut a second later. */
function closeAfter(socket: Duplex, bytes: string): void {
  const cut = setTimeout(() => socket.destroy(), 1_000).unref();
  socket.end(bytes, () => {
    clearTimeout(cut);
    socket.destroy();
  });
}

interface WatchedBody {
  req: IncomingMessage;
  res: ServerResponse;
  socket: Socket;
  bytesRead: number;
  quietSince: number;
}

/**
 * Requests whose body is still arriving. A body that makes no progress for `idleMs` ends the
 * exchange: a 408 if the app has not answered yet (its handler waits on the body in vain), else the
 * connection is cut (the app answered early; Node would wait for the unread rest of the body).
 */
class BodyWatch {
  private readonly watched = new Set<WatchedBody>();
  private readonly inFlight = new WeakMap<Duplex, ServerResponse>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly idleMs: number,
    private readonly errorBody: HttpServerOptions['errorBody'],
  ) {}

  add(req: IncomingMessage, res: ServerResponse): void {
    const socket = req.socket;
    this.inFlight.set(socket, res);
    res.once('finish', () => {
      if (this.inFlight.get(socket) === res) this.inFlight.delete(socket);
    });
    if (!expectsBody(req)) return;
    // No listeners on the socket (a kept-alive one serves many requests): the sweep drops entries
    // whose body is complete or whose connection is gone.
    this.watched.add({ req, res, socket, bytesRead: socket.bytesRead, quietSince: Date.now() });
  }

  /** True when the app's answer on this connection has begun: nothing else may be written to it. */
  answered(socket: Duplex): boolean {
    return this.inFlight.get(socket)?.headersSent === true;
  }

  start(): void {
    this.timer ??= setInterval(() => this.sweep(), checkPeriod(this.idleMs)).unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private sweep(): void {
    const now = Date.now();
    for (const entry of this.watched) {
      const { req, res, socket } = entry;
      if (req.complete || socket.destroyed) {
        this.watched.delete(entry);
      } else if (socket.bytesRead !== entry.bytesRead) {
        entry.bytesRead = socket.bytesRead;
        entry.quietSince = now;
      } else if (now - entry.quietSince >= this.idleMs) {
        this.watched.delete(entry);
        if (res.headersSent) {
          socket.destroy();
        } else {
          const { contentType, body } = this.errorBody(408, STATUS_CODES[408]!);
          // The app's handler still holds `res`: a late write of its own must not crash the process.
          res.on('error', () => undefined);
          // Connection: close makes Node close the socket once the answer is out.
          res.writeHead(408, {
            'Content-Type': contentType,
            'Content-Length': Buffer.byteLength(body),
            Connection: 'close',
          });
          res.end(body);
        }
      }
    }
  }
}

/** A body is due: a length above zero, or chunks. */
function expectsBody(req: IncomingMessage): boolean {
  if (req.headers['transfer-encoding'] !== undefined) return true;
  const length = req.headers['content-length'];
  return length !== undefined && length !== '0';
}

/** Listens and resolves with the real port (port 0 picks a free one) and a URL to reach it. */
export async function listenHttp(
  server: Server,
  host: string,
  port: number,
): Promise<{ port: number; url: string }> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const actual = (server.address() as AddressInfo).port;
  // A wildcard address is not somewhere to send a request: name the loopback instead.
  const name = ['0.0.0.0', '::', ''].includes(host) ? 'localhost' : host.includes(':') ? `[${host}]` : host;
  const scheme = server instanceof HttpsServer ? 'https' : 'http';
  return { port: actual, url: `${scheme}://${name}:${actual}` };
}

/**
 * Stops accepting connections and resolves once the open ones are done: idle keep-alive sockets are
 * closed at once, busy ones may finish their response within `graceMs`, then they are cut.
 */
export function closeHttp(server: Server, graceMs = 5_000): Promise<void> {
  return new Promise((resolve) => {
    const force = setTimeout(() => server.closeAllConnections(), graceMs);
    server.close(() => {
      clearTimeout(force);
      resolve();
    });
    server.closeIdleConnections();
  });
}
