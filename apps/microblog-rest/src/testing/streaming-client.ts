import { request as httpRequest, type IncomingMessage } from 'node:http';
import { WebSocket } from 'ws';

/** A frame of the streaming socket: an event, or an error told to the client. */
export interface StreamFrame {
  stream?: string[];
  event?: string;
  payload?: string;
  error?: string;
  status?: number;
}

/** Waits for frames that arrive on a stream, failing after `timeoutMs` with what did arrive. */
class Frames<T> {
  readonly all: T[] = [];
  private waiters: Array<{ match: (item: T) => boolean; resolve: (item: T) => void }> = [];

  push(item: T): void {
    this.all.push(item);
    for (const waiter of [...this.waiters]) {
      if (waiter.match(item)) {
        this.waiters = this.waiters.filter((other) => other !== waiter);
        waiter.resolve(item);
      }
    }
  }

  next(match: (item: T) => boolean, timeoutMs = 10_000): Promise<T> {
    const seen = this.all.find(match);
    if (seen !== undefined) return Promise.resolve(seen);
    return new Promise<T>((resolve, reject) => {
      const waiter = {
        match,
        resolve: (item: T) => {
          clearTimeout(timer);
          resolve(item);
        },
      };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((other) => other !== waiter);
        reject(new Error(`no matching frame within ${timeoutMs} ms; got ${JSON.stringify(this.all)}`));
      }, timeoutMs);
      this.waiters.push(waiter);
    });
  }
}

export interface TestSocket {
  ws: WebSocket;
  /** The subprotocol the server chose (masto.js needs its token echoed). */
  protocol: string;
  frames: Frames<StreamFrame>;
  send(message: unknown): void;
  close(): Promise<void>;
}

/**
 * A raw WebSocket to `/api/v1/streaming` (the `ws` package): the token as subprotocol, header or
 * query, as `via` says. Rejects with the HTTP status and body when the handshake is refused.
 */
export async function openStreamingSocket(
  baseUrl: string,
  token: string | null,
  options: { via?: 'protocol' | 'header' | 'query'; query?: string } = {},
): Promise<TestSocket> {
  const via = options.via ?? 'protocol';
  const wsUrl = new URL('/api/v1/streaming', baseUrl.replace(/^http/, 'ws'));
  if (options.query) wsUrl.search = options.query;
  if (token !== null && via === 'query') wsUrl.searchParams.set('access_token', token);
  const ws = new WebSocket(
    wsUrl,
    token !== null && via === 'protocol' ? [token] : [],
    token !== null && via === 'header' ? { headers: { Authorization: `Bearer ${token}` } } : {},
  );
  const frames = new Frames<StreamFrame>();
  ws.on('message', (data: Buffer) => frames.push(JSON.parse(data.toString('utf8')) as StreamFrame));
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('unexpected-response', (_req, res: IncomingMessage) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      res.on('end', () =>
        reject(Object.assign(new Error(`refused: ${res.statusCode}`), { status: res.statusCode, body })),
      );
    });
    ws.once('error', reject);
  });
  return {
    ws,
    protocol: ws.protocol,
    frames,
    send: (message) => ws.send(typeof message === 'string' ? message : JSON.stringify(message)),
    close: () =>
      new Promise<void>((resolve) => {
        if (ws.readyState === WebSocket.CLOSED) return resolve();
        ws.once('close', () => resolve());
        ws.close();
      }),
  };
}

/** One server-sent event, or a comment line (`:thump`). */
export interface SseItem {
  event?: string;
  data?: string;
  comment?: string;
}

export interface TestEventStream {
  status: number;
  headers: IncomingMessage['headers'];
  items: Frames<SseItem>;
  close(): void;
}

/** A raw HTTP GET of an SSE path; the stream's items are parsed as they arrive. */
export function openEventStream(
  baseUrl: string,
  path: string,
  headers: Record<string, string> = {},
): Promise<TestEventStream & { body(): Promise<string> }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(new URL(path, baseUrl), { headers }, (res) => {
      const items = new Frames<SseItem>();
      let buffer = '';
      let raw = '';
      const ended = new Promise<string>((done) => res.on('end', () => done(raw)));
      res.on('data', (chunk: Buffer) => {
        const text = chunk.toString('utf8');
        raw += text;
        buffer += text;
        // Comments end with one newline; events with a blank line.
        for (;;) {
          if (buffer.startsWith(':')) {
            const end = buffer.indexOf('\n');
            if (end === -1) break;
            items.push({ comment: buffer.slice(1, end) });
            buffer = buffer.slice(end + 1);
            continue;
          }
          const end = buffer.indexOf('\n\n');
          if (end === -1) break;
          const item: SseItem = {};
          for (const line of buffer.slice(0, end).split('\n')) {
            const colon = line.indexOf(': ');
            const [field, value] =
              colon === -1 ? [line.replace(/:$/, ''), ''] : [line.slice(0, colon), line.slice(colon + 2)];
            if (field === 'event') item.event = value;
            if (field === 'data') item.data = value;
          }
          items.push(item);
          buffer = buffer.slice(end + 2);
        }
      });
      res.on('error', () => undefined);
      resolve({
        status: res.statusCode ?? 0,
        headers: res.headers,
        items,
        body: () => ended,
        close: () => req.destroy(),
      });
    });
    req.on('error', reject);
    req.end();
  });
}
