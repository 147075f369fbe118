import { createServer, type IncomingHttpHeaders, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request as the loopback server saw it. */
export interface LoopbackRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface LoopbackReply {
  status?: number;
  body?: string;
}

export interface LoopbackServer {
  /** `http://127.0.0.1:<port>` */
  origin: string;
  requests: LoopbackRequest[];
  close(): Promise<void>;
}

/** A remote party on loopback (a PuSH callback or hub) that records every request and answers by `reply`. */
export async function startLoopbackServer(
  reply: (request: LoopbackRequest, index: number) => LoopbackReply = () => ({}),
): Promise<LoopbackServer> {
  const requests: LoopbackRequest[] = [];
  const server = createServer((incoming, response) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const url = new URL(incoming.url ?? '/', 'http://loopback');
      const request: LoopbackRequest = {
        method: incoming.method ?? 'GET',
        path: url.pathname,
        query: url.searchParams,
        headers: incoming.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      requests.push(request);
      const answer = reply(request, requests.length - 1);
      response.writeHead(answer.status ?? 200, { 'content-type': 'text/plain' }).end(answer.body ?? '');
    });
  });
  return { ...(await listen(server)), requests };
}

/** Serves a request listener (e.g. an Express app) on loopback. */
export async function serveOnLoopback(
  listener: RequestListener,
): Promise<{ origin: string; close(): Promise<void> }> {
  return listen(createServer(listener));
}

async function listen(server: Server): Promise<{ origin: string; close(): Promise<void> }> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
