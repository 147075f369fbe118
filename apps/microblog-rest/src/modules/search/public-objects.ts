import { addressesPublic } from '../statuses-federation/remote-notes.js';
import type { ObjectResolver } from './search.service.js';

/** Whether an object is addressed to everyone (public: `to`; unlisted: `cc`). */
function isPublicObject(document: Record<string, unknown>): boolean {
  return addressesPublic(document.to) || addressesPublic(document.cc);
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
