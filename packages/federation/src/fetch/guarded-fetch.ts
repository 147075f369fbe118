import { promises as dns } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import { forbiddenRange, normalizeHost, parseAddress, PrivateHostAllowList } from './address.policy.js';
import {
  FetchBadResponseError,
  FetchError,
  FetchHttpError,
  FetchNetworkError,
  FetchRedirectError,
  FetchRefusedError,
  FetchTimeoutError,
  FetchTooLargeError,
} from './fetch.errors.js';

// Mastodon's request limits (spec/microblog/not-shown.md §5.2).
export const DEFAULT_FETCH_TIMEOUT_MS = 10_000;
export const DEFAULT_MAX_REDIRECTS = 2;
export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
// Credentials meant for one origin must not follow a redirect to another.
const ORIGIN_BOUND_HEADERS = ['authorization', 'cookie', 'proxy-authorization'];

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** DNS lookup used to find the addresses to connect to (tests point names at loopback with it). */
export type HostResolver = (hostname: string) => Promise<ResolvedAddress[]>;

/** What the `sign` hook sees: the final headers of this hop, before signature headers are added. */
export interface SignableRequest {
  method: string;
  url: URL;
  headers: Record<string, string>;
  body?: Uint8Array;
}

/** Returns extra headers (e.g. the instance actor's `Signature`); called again for every redirect hop. */
export type RequestSigner = (
  request: SignableRequest,
) => Promise<Record<string, string>> | Record<string, string>;

export interface GuardedFetchOptions {
  userAgent: string;
  /** Budget for the whole call: DNS, connect, headers, body, and every redirect hop. */
  timeoutMs?: number;
  maxRedirects?: number;
  maxBodyBytes?: number;
  /** `host`, `host:port` or CIDR entries that may resolve to private addresses (tests, LAN peers). */
  allowPrivateHosts?: readonly string[];
  /** Domain blocks: true refuses the host, checked before connecting and after each redirect. */
  blockedHosts?: (host: string) => boolean;
  sign?: RequestSigner;
  resolver?: HostResolver;
}

export interface GuardedRequestOptions {
  headers?: Record<string, string>;
  timeoutMs?: number;
  /** Per-call cap, e.g. larger for media downloads. */
  maxBodyBytes?: number;
  /** Set false to skip the `sign` hook for this call. */
  signed?: boolean;
  signal?: AbortSignal;
}

export interface GuardedResponse {
  status: number;
  ok: boolean;
  /** Lower-case names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  /** The URL that answered, after redirects. */
  url: string;
  body: Buffer;
  text(): string;
  /** Parses the body as JSON; throws FetchBadResponseError if it is not. */
  json<T = unknown>(): T;
}

export interface GuardedFetch {
  get(url: string | URL, options?: GuardedRequestOptions): Promise<GuardedResponse>;
  post(
    url: string | URL,
    body: Uint8Array | string,
    options?: GuardedRequestOptions,
  ): Promise<GuardedResponse>;
  request(
    method: string,
    url: string | URL,
    body?: Uint8Array | string,
    options?: GuardedRequestOptions,
  ): Promise<GuardedResponse>;
  /** Drops pooled keep-alive sockets. */
  close(): void;
}

interface Hop {
  method: string;
  url: URL;
  headers: Record<string, string>;
  body: Uint8Array | undefined;
  maxBodyBytes: number;
}

type HopResult =
  | { kind: 'redirect'; status: number; location: string }
  | { kind: 'response'; status: number; headers: Record<string, string>; body: Buffer };

/** Throws FetchHttpError unless the status is 2xx. */
export function assertOk(response: GuardedResponse): GuardedResponse {
  if (!response.ok) throw new FetchHttpError(response.status, response.url);
  return response;
}

/**
 * The one client for remote GET/POST. Built on node:http(s) with a custom `lookup`, so the address
 * checked against the SSRF list is the very address the socket connects to (no re-resolution).
 */
export function createGuardedFetch(options: GuardedFetchOptions): GuardedFetch {
  const timeoutMs = options.timeoutMs ?? DEFAULT_FETCH_TIMEOUT_MS;
  const maxRedirects = options.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const allowList = new PrivateHostAllowList(options.allowPrivateHosts ?? []);
  const resolver = options.resolver ?? systemResolver;
  // Own pools: a reused socket was opened under this client's policy, never another's.
  const agents = {
    'http:': new http.Agent({ keepAlive: true, timeout: 30_000 }),
    'https:': new https.Agent({ keepAlive: true, timeout: 30_000 }),
  };

  function portOf(url: URL): number {
    return url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
  }

  /** Checks that need no network: scheme, hidden services, domain blocks, literal private IPs. */
  function guardTarget(url: URL): void {
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw new FetchRefusedError('scheme', url.href);
    const host = normalizeHost(url.hostname);
    if (host === '') throw new FetchRefusedError('bad_url', url.href);
    if (/\.(onion|i2p)$/.test(host)) throw new FetchRefusedError('hidden_service', url.href);
    if (options.blockedHosts?.(host)) throw new FetchRefusedError('blocked_host', url.href);
    // Node skips `lookup` for IP literals, so they are checked here.
    if (parseAddress(host) && !permitted(url, host)) throw new FetchRefusedError('private_address', url.href);
  }

  function permitted(url: URL, address: string): boolean {
    return forbiddenRange(address) === null || allowList.allows(url.hostname, portOf(url), address);
  }

  function guardedLookup(url: URL): LookupFunction {
    return (hostname, lookupOptions, callback) => {
      resolver(hostname).then(
        (found) => {
          const family = lookupOptions.family;
          const usable = family === 4 || family === 6 ? found.filter((a) => a.family === family) : found;
          if (usable.length === 0) return callback(new FetchNetworkError('ENOTFOUND', url.href), []);
          // One private answer refuses the host: round-robin DNS must not smuggle one in.
          if (!usable.every((a) => permitted(url, a.address))) {
            return callback(new FetchRefusedError('private_address', url.href), []);
          }
          if (lookupOptions.all) return callback(null, usable);
          const first = usable[0] as ResolvedAddress;
          callback(null, first.address, first.family);
        },
        (error: unknown) => callback(toFetchError(error, url), []),
      );
    };
  }

  function exchange(hop: Hop, signal: AbortSignal): Promise<HopResult> {
    return new Promise((resolve, reject) => {
      let settled = false;
      const live: { request?: http.ClientRequest; response?: http.IncomingMessage } = {};
      const finish = (error: Error | null, result?: HopResult): void => {
        if (settled) return;
        settled = true;
        signal.removeEventListener('abort', onAbort);
        // Redirect bodies and failed transfers are cut, not drained.
        if (error || result?.kind === 'redirect') {
          live.response?.destroy();
          live.request?.destroy();
        }
        if (error) reject(error);
        else resolve(result as HopResult);
      };
      const onAbort = (): void => finish(asError(signal.reason, hop.url));
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });

      const transport = hop.url.protocol === 'https:' ? https : http;
      const request = transport.request(
        {
          protocol: hop.url.protocol,
          hostname: hop.url.hostname.replace(/^\[|\]$/g, ''),
          port: portOf(hop.url),
          path: `${hop.url.pathname}${hop.url.search}`,
          method: hop.method,
          headers: hop.headers,
          agent: agents[hop.url.protocol as 'http:' | 'https:'],
          lookup: guardedLookup(hop.url),
        },
        (incoming) => {
          live.response = incoming;
          const status = incoming.statusCode ?? 0;
          const headers = flattenHeaders(incoming.headers);
          const location = headers['location'];
          if (REDIRECT_STATUSES.has(status) && location !== undefined) {
            return finish(null, { kind: 'redirect', status, location });
          }
          const declared = Number(headers['content-length']);
          if (Number.isFinite(declared) && declared > hop.maxBodyBytes) {
            return finish(new FetchTooLargeError(hop.maxBodyBytes, hop.url.href));
          }
          const chunks: Buffer[] = [];
          let received = 0;
          incoming.on('data', (chunk: Buffer) => {
            received += chunk.length;
            if (received > hop.maxBodyBytes)
              return finish(new FetchTooLargeError(hop.maxBodyBytes, hop.url.href));
            chunks.push(chunk);
          });
          incoming.on('end', () =>
            finish(null, { kind: 'response', status, headers, body: Buffer.concat(chunks, received) }),
          );
          incoming.on('error', (error) => finish(toFetchError(error, hop.url)));
          // Built only when the transfer really broke off: an error object (and its stack) per
          // successful response is measurable on the delivery path.
          incoming.on('close', () => {
            if (!settled) finish(new FetchNetworkError('ECONNRESET', hop.url.href));
          });
        },
      );
      live.request = request;
      request.on('error', (error) => finish(toFetchError(error, hop.url)));
      request.end(hop.body);
    });
  }

  async function buildHeaders(
    method: string,
    url: URL,
    body: Uint8Array | undefined,
    callerHeaders: Record<string, string>,
    signed: boolean,
    signal: AbortSignal,
  ): Promise<Record<string, string>> {
    const headers: Record<string, string> = {
      host: url.host,
      date: new Date().toUTCString(),
      'user-agent': options.userAgent,
      // The body cap counts wire bytes; no decompression means no zip bombs.
      'accept-encoding': 'identity',
      ...callerHeaders,
    };
    if (body !== undefined) headers['content-length'] = String(body.byteLength);
    if (signed && options.sign) {
      const pending = Promise.resolve(
        options.sign({ method, url: new URL(url.href), headers: { ...headers }, ...(body ? { body } : {}) }),
      );
      Object.assign(headers, lowerCaseKeys(await untilAborted(pending, signal, url)));
    }
    return headers;
  }

  async function request(
    method: string,
    input: string | URL,
    body?: Uint8Array | string,
    callOptions: GuardedRequestOptions = {},
  ): Promise<GuardedResponse> {
    const budgetMs = callOptions.timeoutMs ?? timeoutMs;
    let url = parseTarget(input);
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(new FetchTimeoutError(budgetMs, url.href)), budgetMs);
    const callerSignal = callOptions.signal;
    const onCallerAbort = (): void => deadline.abort(callerSignal?.reason);
    if (callerSignal?.aborted) onCallerAbort();
    callerSignal?.addEventListener('abort', onCallerAbort, { once: true });
    try {
      let hopMethod = method.toUpperCase();
      let hopBody = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
      let callerHeaders = lowerCaseKeys(callOptions.headers ?? {});
      for (let redirects = 0; ; redirects += 1) {
        guardTarget(url);
        const headers = await buildHeaders(
          hopMethod,
          url,
          hopBody,
          callerHeaders,
          callOptions.signed ?? true,
          deadline.signal,
        );
        const hop = { method: hopMethod, url, headers, body: hopBody };
        const result = await exchange(
          { ...hop, maxBodyBytes: callOptions.maxBodyBytes ?? maxBodyBytes },
          deadline.signal,
        );
        if (result.kind === 'response')
          return toResponse(result.status, result.headers, result.body, url.href);

        if (redirects >= maxRedirects) throw new FetchRedirectError('too_many', url.href);
        const next = parseLocation(result.location, url);
        if (next.origin !== url.origin) {
          callerHeaders = Object.fromEntries(
            Object.entries(callerHeaders).filter(([name]) => !ORIGIN_BOUND_HEADERS.includes(name)),
          );
        }
        // Browsers' rules: 303 always, and 301/302 after a POST, continue as a bodiless GET.
        if (
          result.status === 303 ||
          ((result.status === 301 || result.status === 302) && hopMethod === 'POST')
        ) {
          if (hopMethod !== 'HEAD') hopMethod = 'GET';
          hopBody = undefined;
          delete callerHeaders['content-type'];
        }
        url = next;
      }
    } finally {
      clearTimeout(timer);
      callerSignal?.removeEventListener('abort', onCallerAbort);
    }
  }

  return {
    request,
    get: (url, callOptions) => request('GET', url, undefined, callOptions),
    post: (url, body, callOptions) => request('POST', url, body, callOptions),
    close: () => {
      agents['http:'].destroy();
      agents['https:'].destroy();
    },
  };
}

const systemResolver: HostResolver = async (hostname) => {
  const found = await dns.lookup(hostname, { all: true });
  return found.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
};

function parseTarget(input: string | URL): URL {
  try {
    return new URL(String(input));
  } catch {
    throw new FetchRefusedError('bad_url', String(input));
  }
}

function parseLocation(location: string, base: URL): URL {
  try {
    return new URL(location, base);
  } catch {
    throw new FetchRedirectError('bad_location', base.href);
  }
}

function toResponse(
  status: number,
  headers: Record<string, string>,
  body: Buffer,
  url: string,
): GuardedResponse {
  const text = (): string => body.toString('utf8');
  return {
    status,
    ok: status >= 200 && status < 300,
    headers,
    url,
    body,
    text,
    json<T>(): T {
      try {
        return JSON.parse(text()) as T;
      } catch {
        // The parser's message quotes the body; keep remote text out of errors.
        throw new FetchBadResponseError('Response body is not valid JSON', url);
      }
    },
  };
}

function flattenHeaders(raw: http.IncomingHttpHeaders): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(raw)) {
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}

function lowerCaseKeys(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
}

/** Socket and DNS failures keep only their errno-style code; their text can name internal hosts. */
function toFetchError(error: unknown, url: URL): FetchError {
  if (error instanceof FetchError) return error;
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return new FetchNetworkError(
    typeof code === 'string' && /^[A-Z0-9_]{1,40}$/.test(code) ? code : 'UNKNOWN',
    url.href,
  );
}

function asError(reason: unknown, url: URL): Error {
  return reason instanceof Error ? reason : new FetchNetworkError('ABORTED', url.href);
}

function untilAborted<T>(pending: Promise<T>, signal: AbortSignal, url: URL): Promise<T> {
  if (signal.aborted) return Promise.reject(asError(signal.reason, url));
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(asError(signal.reason, url));
    signal.addEventListener('abort', onAbort, { once: true });
    pending.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
