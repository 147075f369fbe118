import cors from 'cors';
import type { RequestHandler } from 'express';

/** Paths browser clients (Elk, Phanpy) call cross-origin. */
export const CORS_PATHS = ['/api', '/oauth/token', '/.well-known', '/nodeinfo'];

/**
 * `Access-Control-Allow-Origin: *` with `Link` (pagination) and the rate-limit headers readable by
 * scripts; preflights are answered here with 204. No credentials: tokens travel in headers.
 */
export function corsMiddleware(): RequestHandler {
  return cors({
    origin: '*',
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    exposedHeaders: ['Link', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'],
    maxAge: 86_400,
  });
}
