import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

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
  return { port: actual, url: `http://${name}:${actual}` };
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
