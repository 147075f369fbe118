import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import type { Express } from 'express';
import { expressClientIp, RateLimitGate, scopesAllow, type RateLimiter } from '@agora/auth';
import type { Logger } from '@agora/core';
import { BEARER_TOKEN_HEADER } from '../modules/oauth/bearer.js';
import type { BearerAuth, OAuthService } from '../modules/oauth/oauth.service.js';
import { apiRateLimitChecks } from './api-rate-limit.js';
import { CORS_RESPONSE_HEADERS } from './cors.js';
import { errorResponse } from './errors.js';
import type { HotPage, HotRead, KeptAnswer } from './hot-reads.js';

export interface FastLaneOptions {
  reads: readonly HotRead[];
  /** Reads answered by the lane only when a kept answer holds (ADR 0049). */
  pages?: readonly HotPage[];
  oauth: OAuthService;
  /** The `/api` rate limiter, whose safelist the lane honours as the Express path does. */
  limiter: RateLimiter;
  logger: Logger;
}

const JSON_TYPE = 'application/json; charset=utf-8';
/** What `counted` gives a caller the limiter exempts: no headers of its own. */
const NO_LIMIT_HEADERS: Readonly<Record<string, string>> = Object.freeze({});

/**
 * The app's request listener with the hot reads answered before Express. Express gives every request
 * its own prototypes and walks ~30 routers, which costs more CPU than a cached token check and one
 * prepared query. The lane takes only a plain `GET <path>` with a valid `Authorization: Bearer` token
 * that the route's guard would let through; everything else (no or refused token, a query string,
 * conditional requests, HEAD) goes to Express, which answers it as before. What the lane sends is
 * what the Express route sends: CORS, rate-limit counting and headers, ETag, errors.
 */
export function withFastLane(app: Express, options: FastLaneOptions): RequestListener {
  const reads = new Map<string, HotRead | HotPage>(options.reads.map((read) => [read.path, read]));
  for (const page of options.pages ?? []) reads.set(page.path, page);
  const gate = new RateLimitGate(options.limiter, { logger: options.logger });
  const etagOf = app.get('etag fn') as ((body: Buffer) => string | undefined) | undefined;
  const ipOf = (req: IncomingMessage): string | undefined => expressClientIp(app, req);

  // As res.json: Content-Length, and the ETag of the app's setting on every status.
  const send = (res: ServerResponse, status: number, json: string, headers: Record<string, string>) => {
    const body = Buffer.from(json);
    const etag = etagOf?.(body);
    res.writeHead(status, {
      ...CORS_RESPONSE_HEADERS,
      ...headers,
      'Content-Type': JSON_TYPE,
      'Content-Length': String(body.length),
      ...(etag ? { ETag: etag } : {}),
    });
    res.end(body);
  };

  /**
   * Counts the request against the API's rate limits as Express's limiter would: the headers to send,
   * or undefined once it has answered 429.
   */
  const counted = async (
    req: IncomingMessage,
    res: ServerResponse,
    auth: BearerAuth,
  ): Promise<Readonly<Record<string, string>> | undefined> => {
    const ip = ipOf(req);
    if (gate.exempt(ip)) return NO_LIMIT_HEADERS;
    const decision = await gate.count(apiRateLimitChecks(auth, ip), { counted: new Set() });
    if (decision && !decision.allowed) {
      send(res, 429, JSON.stringify({ error: 'Too many requests' }), decision.headers);
      return undefined;
    }
    return decision?.headers ?? NO_LIMIT_HEADERS;
  };

  /** A kept answer's response headers, with the rate limit's headers of this request. */
  const keptHeaders = (kept: KeptAnswer, limitHeaders: Readonly<Record<string, string>>) => ({
    ...CORS_RESPONSE_HEADERS,
    ...limitHeaders,
    ...kept.headers,
    'Content-Type': JSON_TYPE,
    'Content-Length': String(kept.body.length),
    ...(kept.etag ? { ETag: kept.etag } : {}),
  });
  // For callers with no rate-limit headers (exempt), the same headers on every answer of a kept page.
  const unlimitedHeaders = new WeakMap<KeptAnswer, Readonly<Record<string, string>>>();

  /** A kept page: Express answers when none holds; otherwise counted and sent as Express sends it. */
  const answerKept = async (req: IncomingMessage, res: ServerResponse, page: HotPage, auth: BearerAuth) => {
    const kept = await page.kept(auth);
    if (kept === undefined) return app(req, res);
    const limitHeaders = await counted(req, res, auth);
    if (limitHeaders === undefined) return;
    let headers: Readonly<Record<string, string>> | undefined;
    if (limitHeaders === NO_LIMIT_HEADERS) {
      headers = unlimitedHeaders.get(kept);
      if (headers === undefined)
        unlimitedHeaders.set(kept, (headers = Object.freeze(keptHeaders(kept, limitHeaders))));
    } else {
      headers = keptHeaders(kept, limitHeaders);
    }
    res.writeHead(200, headers);
    res.end(kept.body);
  };

  const answer = async (req: IncomingMessage, res: ServerResponse, read: HotRead, auth: BearerAuth) => {
    const limitHeaders = await counted(req, res, auth);
    if (limitHeaders === undefined) return;
    let entity: unknown;
    try {
      entity = await read.render(auth);
    } catch (error) {
      const { status, body, headers } = errorResponse(error);
      if (status >= 500)
        options.logger.error({ err: error, method: 'GET', path: read.path }, 'request failed');
      return send(res, status, JSON.stringify(body), { ...limitHeaders, ...headers });
    }
    send(res, 200, JSON.stringify(entity), limitHeaders);
  };

  return (req, res) => {
    const read = req.method === 'GET' ? reads.get(req.url ?? '') : undefined;
    const token = read ? BEARER_TOKEN_HEADER.exec(req.headers.authorization ?? '')?.[1] : undefined;
    if (!read || token === undefined || req.headers['if-none-match'] !== undefined) return app(req, res);
    options.oauth.authenticateBearer(token).then(
      (auth) => {
        const allowed =
          auth !== null &&
          (read.scopes.length === 0 || scopesAllow(auth.scopes, read.scopes)) &&
          (!read.user || auth.userId !== null);
        if (!allowed) return app(req, res);
        return ('kept' in read ? answerKept(req, res, read, auth) : answer(req, res, read, auth)).catch(
          (error: unknown) => {
            options.logger.error({ err: error, method: 'GET', path: read.path }, 'fast lane failed');
            if (!res.headersSent) send(res, 500, JSON.stringify({ error: 'Internal server error' }), {});
            else res.destroy();
          },
        );
      },
      // The token lookup itself failed (database down): Express reports it the usual way.
      () => app(req, res),
    );
  };
}
