import type { IncomingMessage } from 'node:http';
import type { Express, Request } from 'express';

/**
 * `req.ip` as `app` computes it (its trust-proxy setting), for a request answered outside Express:
 * a fast lane in front of the app, a WebSocket upgrade. The request keeps its own prototype.
 */
export function expressClientIp(app: Express, request: IncomingMessage): string | undefined {
  const view = Object.create(app.request, {
    headers: { value: request.headers },
    socket: { value: request.socket },
  }) as Request;
  return view.ip;
}
