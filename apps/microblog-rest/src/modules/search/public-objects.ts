import type { ObjectResolver } from './search.service.js';

const AS_PUBLIC = new Set(['https://www.w3.org/ns/activitystreams#Public', 'as:Public', 'Public']);

/** Whether an object is addressed to everyone (public: `to`; unlisted: `cc`). */
export function isPublicObject(document: Record<string, unknown>): boolean {
  const list = (value: unknown) =>
    (Array.isArray(value) ? value : [value]).filter((x) => typeof x === 'string');
  return [...list(document.to), ...list(document.cc)].some((x) => AS_PUBLIC.has(x as string));
}

/**
 * What `resolve=true` of a status URL may store: public and unlisted objects only (a followers-only
 * or direct one is never taken from an unsigned fetch), handed to the store the inbox uses too.
 */
export function publicObjectResolver(
  store: (document: Record<string, unknown>, fetchedFrom: string) => Promise<string | null>,
): ObjectResolver {
  return ({ id, document }) => (isPublicObject(document) ? store(document, id) : Promise.resolve(null));
}
