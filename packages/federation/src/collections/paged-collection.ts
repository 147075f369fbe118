/** The ActivityStreams context of collections and their pages. */
const AS_CONTEXT = 'https://www.w3.org/ns/activitystreams';

/** The most pages a `?page=N` collection answers (deeper is a crawl, not a reader). */
export const MAX_COLLECTION_PAGE = 100_000;

/**
 * The page number of a `?page=N` request, or null for the collection itself (no page, or one that is
 * not a whole number from 1 to MAX_COLLECTION_PAGE).
 */
export function collectionPageOf(query: unknown): number | null {
  const page = Number(query);
  return Number.isInteger(page) && page >= 1 && page <= MAX_COLLECTION_PAGE ? page : null;
}

/**
 * An `OrderedCollection` paginated by number (`<id>?page=N`) as Mobilizon and Mastodon's follower
 * lists serve it: the collection names its `first` page (embedded when `first` is given as a page),
 * and each `OrderedCollectionPage` links `partOf`, `next` and `prev`.
 */
export function orderedCollection(
  id: string,
  totalItems: number,
  first?: Record<string, unknown>,
): Record<string, unknown> {
  return {
    '@context': AS_CONTEXT,
    id,
    type: 'OrderedCollection',
    totalItems,
    first: first ? withoutContext(first) : `${id}?page=1`,
  };
}

/** Page `page` of the collection `id`; `more` says whether a next page exists. */
export function orderedCollectionPage(
  id: string,
  page: number,
  totalItems: number,
  items: readonly unknown[],
  more: boolean,
): Record<string, unknown> {
  return {
    '@context': AS_CONTEXT,
    id: `${id}?page=${page}`,
    type: 'OrderedCollectionPage',
    totalItems,
    partOf: id,
    ...(more ? { next: `${id}?page=${page + 1}` } : {}),
    ...(page > 1 ? { prev: `${id}?page=${page - 1}` } : {}),
    orderedItems: items,
  };
}

function withoutContext(document: Record<string, unknown>): Record<string, unknown> {
  const { '@context': _context, ...rest } = document;
  return rest;
}
