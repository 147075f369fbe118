import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { verifyRequest, type KeyResolver } from '../signatures/index.js';

/** One POST as the inbox saw it. */
export interface InboxHit {
  path: string;
  activityId: string | null;
  contentType: string | undefined;
  status: number;
  /** Whether the signature verified (null when no key resolver was given). */
  verified: boolean | null;
  reason?: string;
  at: number;
}

export interface LoopbackInbox {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  hits: InboxHit[];
  /** TCP connections accepted so far (a client that keeps connections alive opens few). */
  connections(): number;
  close(): Promise<void>;
}

export interface LoopbackInboxOptions {
  /** The status for the n-th request (0-based) to a path; 202 when omitted. */
  status?: (hitIndex: number, path: string) => number;
  /** Answer only after this many milliseconds (a slow remote). */
  delayMs?: number;
  resolveKey?: KeyResolver;
  onHit?: (hit: InboxHit) => void;
}

/** A remote inbox on loopback that verifies HTTP signatures as a real peer would, and records each POST. */
export async function startLoopbackInbox(options: LoopbackInboxOptions = {}): Promise<LoopbackInbox> {
  const hits: InboxHit[] = [];
  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    let activityId: string | null = null;
    try {
      const id = (JSON.parse(body.toString('utf8')) as { id?: unknown }).id;
      activityId = typeof id === 'string' ? id : null;
    } catch {
      activityId = null;
    }
    let verified: boolean | null = null;
    let reason: string | undefined;
    if (options.resolveKey) {
      const result = await verifyRequest(
        { method: request.method ?? 'GET', url: request.url ?? '/', headers: request.headers, body },
        options.resolveKey,
        { scheme: 'http' },
      );
      verified = result.ok;
      if (!result.ok) reason = `${result.reason}: ${result.detail}`;
    }
    const path = request.url ?? '/';
    const index = hits.filter((hit) => hit.path === path).length;
    const status = options.status?.(index, path) ?? 202;
    const hit: InboxHit = {
      path,
      activityId,
      contentType: request.headers['content-type'],
      status,
      verified,
      ...(reason === undefined ? {} : { reason }),
      at: Date.now(),
    };
    hits.push(hit);
    options.onHit?.(hit);
    if (options.delayMs) await new Promise((resolve) => setTimeout(resolve, options.delayMs));
    response.writeHead(status, { 'content-type': 'application/json' }).end('{}');
  };
  const server = createServer((request, response) => {
    handle(request, response).catch(() => response.destroy());
  });
  let connections = 0;
  server.on('connection', () => {
    connections += 1;
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    hits,
    connections: () => connections,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
