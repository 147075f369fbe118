import cors from 'cors';
import type { RequestHandler } from 'express';

/** Paths browser clients (Elk, Phanpy) call cross-origin. */
export const CORS_PATHS = ['/api', '/oauth/token', '/.well-known', '/nodeinfo'];

/** Response headers scripts of other origins may read. */
const EXPOSED_HEADERS = ['Link', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'] as const;

/** What `corsMiddleware` adds to an answer that is not a preflight (for paths answered before Express). */
export const CORS_RESPONSE_HEADERS: Readonly<Record<string, string>> = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Expose-Headers': EXPOSED_HEADERS.join(','),
};

/**
 * `Access-Control-Allow-Origin: *` with `Link` (pagination) and the rate-limit headers readable by
 * scripts; preflights are answered here with 204. No credentials: tokens travel in headers.
 */
export function corsMiddleware(): RequestHandler {
  return cors({
    origin: '*',
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    exposedHeaders: [...EXPOSED_HEADERS],
    maxAge: 86_400,
  });
}
