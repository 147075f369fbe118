import type { IncomingMessage, ServerResponse } from 'node:http';
import { pipeline } from 'node:stream/promises';
import { assertSafeKey, type ByteRange, type MediaStorage } from './storage.port.js';

type Next = (error?: unknown) => void;

/** Keys never change content (each upload gets a new shortcode), so caches may keep them for a year. */
const CACHE_CONTROL = 'public, max-age=31536000, immutable';

/**
 * An Express-compatible handler serving stored media under its mount point (`app.use('/media', …)`):
 * GET/HEAD, single byte ranges (206/416), ETag revalidation (304), long-lived caching.
 * A missing file goes to `next()` so the app's own 404 answers.
 */
export function serveMedia(storage: MediaStorage) {
  return (req: IncomingMessage, res: ServerResponse, next: Next = defaultNotFound(res)): void => {
    serve(storage, req, res, next).catch((error: unknown) => {
      if (res.headersSent) res.destroy();
      else next(error);
    });
  };
}

async function serve(storage: MediaStorage, req: IncomingMessage, res: ServerResponse, next: Next) {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    next();
    return;
  }
  const key = keyOf(req.url ?? '/');
  const info = key === null ? null : await storage.head(key);
  if (key === null || info === null) {
    next();
    return;
  }
  res.setHeader('Content-Type', info.contentType);
  res.setHeader('Cache-Control', CACHE_CONTROL);
  res.setHeader('Accept-Ranges', 'bytes');
  // Stored bytes are ours, but never let a browser reinterpret them (e.g. as HTML).
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Content-Security-Policy', "default-src 'none'; media-src 'self'; sandbox");
  if (info.etag) res.setHeader('ETag', info.etag);
  if (info.lastModified) res.setHeader('Last-Modified', info.lastModified.toUTCString());

  if (info.etag && matchesEtag(req.headers['if-none-match'], info.etag)) {
    res.statusCode = 304;
    res.end();
    return;
  }

  const ifRange = req.headers['if-range'];
  const range = parseRange(
    req.headers.range,
    info.size,
    typeof ifRange === 'string' ? ifRange : undefined,
    info.etag,
  );
  if (range === 'unsatisfiable') {
    res.statusCode = 416;
    res.setHeader('Content-Range', `bytes */${info.size}`);
    res.end();
    return;
  }
  if (range) {
    res.statusCode = 206;
    res.setHeader('Content-Range', `bytes ${range.start}-${range.end}/${info.size}`);
    res.setHeader('Content-Length', String(range.end - range.start + 1));
  } else {
    res.statusCode = 200;
    res.setHeader('Content-Length', String(info.size));
  }
  if (req.method === 'HEAD' || info.size === 0) {
    res.end();
    return;
  }
  await pipeline(await storage.get(key, range ?? undefined), res);
}

function keyOf(url: string): string | null {
  try {
    const key = decodeURIComponent(new URL(url, 'http://media.invalid').pathname).replace(/^\/+/, '');
    assertSafeKey(key);
    return key;
  } catch {
    return null;
  }
}

function matchesEtag(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return (
    header === '*' || header.split(',').some((candidate) => candidate.trim().replace(/^W\//, '') === etag)
  );
}

/**
 * One `bytes=` range → its inclusive bounds; several ranges or a stale `If-Range` → the whole file
 * (RFC 9110 allows ignoring Range); a range past the end → unsatisfiable.
 */
export function parseRange(
  header: string | undefined,
  size: number,
  ifRange?: string,
  etag?: string,
): ByteRange | 'unsatisfiable' | null {
  if (!header) return null;
  if (ifRange !== undefined && ifRange !== etag) return null;
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match) return null;
  const [, first = '', last = ''] = match;
  if (first === '' && last === '') return null;
  let start: number;
  let end: number;
  if (first === '') {
    // A suffix: the last N bytes.
    const length = Number(last);
    if (length === 0) return 'unsatisfiable';
    start = Math.max(0, size - length);
    end = size - 1;
  } else {
    start = Number(first);
    end = last === '' ? size - 1 : Math.min(Number(last), size - 1);
    if (last !== '' && Number(last) < start) return null;
  }
  if (start >= size) return 'unsatisfiable';
  return { start, end };
}

function defaultNotFound(res: ServerResponse): Next {
  return (error) => {
    res.statusCode = error === undefined ? 404 : 500;
    res.end();
  };
}
