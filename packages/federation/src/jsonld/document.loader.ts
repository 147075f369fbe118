import { BadInput } from '@agora/core';
import { ACTIVITYSTREAMS_CONTEXT_URL, activityStreamsContext } from './contexts/activitystreams.context.js';
import type { JsonLdContextDocument } from './contexts/context.types.js';
import { SECURITY_V1_CONTEXT_URL, securityV1Context } from './contexts/security-v1.context.js';

/** What a JSON-LD processor (the `jsonld` package) expects back from its `documentLoader`. */
export interface RemoteDocument {
  contextUrl: string | null;
  documentUrl: string;
  document: unknown;
}

/** The `documentLoader` option of the `jsonld` package (and of our own JSON-LD handling). */
export type DocumentLoader = (url: string) => Promise<RemoteDocument>;

/** The context documents we ship, by canonical URL. */
export const BUNDLED_CONTEXTS: ReadonlyMap<string, JsonLdContextDocument> = new Map([
  [ACTIVITYSTREAMS_CONTEXT_URL, deepFreeze(activityStreamsContext)],
  [SECURITY_V1_CONTEXT_URL, deepFreeze(securityV1Context)],
]);

/**
 * A document loader that serves only bundled contexts and refuses every other URL, so processing a
 * remote document never makes a request (no SSRF, no stalls, no context swapped under us).
 * `extra` adds more documents by URL (e.g. a peer's context the app decides to ship).
 */
export function bundledDocumentLoader(
  extra: Readonly<Record<string, JsonLdContextDocument>> = {},
): DocumentLoader {
  const documents = new Map(BUNDLED_CONTEXTS);
  for (const [url, document] of Object.entries(extra))
    documents.set(canonicalContextUrl(url), deepFreeze(document));
  return (url) => {
    const canonical = canonicalContextUrl(url);
    const document = documents.get(canonical);
    if (!document) {
      return Promise.reject(
        new BadInput(`JSON-LD context not available: ${url.slice(0, 200)}`, {
          code: 'unknown_jsonld_context',
        }),
      );
    }
    return Promise.resolve({ contextUrl: null, documentUrl: canonical, document });
  };
}

/** Peers write the same context as http/https, with a trailing `#` or `/`: they all mean one document. */
export function canonicalContextUrl(url: string): string {
  return url
    .trim()
    .replace(/^http:\/\//i, 'https://')
    .replace(/[#/]+$/, '');
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}
