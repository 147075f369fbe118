import type { IncomingMessage, Server as HttpServer } from 'node:http';
import type { Duplex } from 'node:stream';

/** One WebSocket protocol served on the HTTP server, at its own path. */
export interface SocketRoute {
  readonly path: string;
  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void;
  close(): Promise<void>;
}

/**
 * Routes the HTTP server's upgrade requests by path to the WebSocket protocols it serves (graphql-ws
 * on `/graphql_socket`, Phoenix channels on `/graphql_socket/websocket`): one `upgrade` listener, as
 * two `ws` servers bound to one HTTP server would each refuse the other's path.
 */
export function routeUpgrades(
  server: HttpServer,
  routes: readonly SocketRoute[],
): { close(): Promise<void> } {
  const byPath = new Map(routes.map((route) => [route.path, route]));
  const onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = request.url ?? '';
    const query = url.indexOf('?');
    const route = byPath.get(query === -1 ? url : url.slice(0, query));
    if (route) return route.handleUpgrade(request, socket, head);
    // Node has taken its own listeners off an upgraded socket: a reset must not become an uncaught error.
    socket.on('error', () => socket.destroy());
    socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
  };
  server.on('upgrade', onUpgrade);
  return {
    async close() {
      server.off('upgrade', onUpgrade);
      await Promise.all(routes.map((route) => route.close()));
    },
  };
}
