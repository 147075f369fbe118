import type { IncomingSignedRequest } from './signature.types.js';

/** Header names lower-cased, repeated values joined the way HTTP combines them. */
export function normalizeHeaders(headers: IncomingSignedRequest['headers']): Map<string, string> {
  const normalized = new Map<string, string>();
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    const values = Array.isArray(value) ? value : [value];
    const key = name.toLowerCase();
    const previous = normalized.get(key);
    const joined = values.map((entry) => entry.trim()).join(', ');
    normalized.set(key, previous === undefined ? joined : `${previous}, ${joined}`);
  }
  return normalized;
}

function isPath(url: string): boolean {
  return url.startsWith('/');
}

/** The path and query as sent on the request line, without normalization. */
export function pathAndQuery(url: string): string | null {
  if (isPath(url)) return url;
  if (!URL.canParse(url)) return null;
  const parsed = new URL(url);
  return parsed.pathname + parsed.search;
}

/**
 * The absolute target URI. A path is appended to `scheme://host` as text, never resolved: resolving
 * `//evil.example/x` would move the authority to another host.
 */
export function targetUri(url: string, host: string | undefined, scheme: 'http' | 'https'): URL | null {
  try {
    if (!isPath(url)) return new URL(url);
    if (!host) return null;
    return new URL(`${scheme}://${host}${url}`);
  } catch {
    return null;
  }
}

/** True when the request carries content that a digest has to cover. */
export function hasBody(request: IncomingSignedRequest): boolean {
  if (request.body && request.body.length > 0) return true;
  return ['POST', 'PUT', 'PATCH'].includes(request.method.toUpperCase());
}
