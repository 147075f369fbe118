import type { JsonLdContextMap } from './context.types.js';

/**
 * The microblog service's inline context map: the extension terms Mastodon 4.x sends and reads
 * (`spec/microblog/not-shown.md` §4.2), so its documents expand the same way Mastodon's do.
 */
export const mastodonContextMap: JsonLdContextMap = {
  toot: 'http://joinmastodon.org/ns#',
  schema: 'http://schema.org#',
  manuallyApprovesFollowers: 'as:manuallyApprovesFollowers',
  sensitive: 'as:sensitive',
  Hashtag: 'as:Hashtag',
  movedTo: { '@id': 'as:movedTo', '@type': '@id' },
  alsoKnownAs: { '@id': 'as:alsoKnownAs', '@type': '@id' },
  discoverable: 'toot:discoverable',
  indexable: 'toot:indexable',
  featured: { '@id': 'toot:featured', '@type': '@id' },
  featuredTags: { '@id': 'toot:featuredTags', '@type': '@id' },
  memorial: 'toot:memorial',
  suspended: 'toot:suspended',
  Emoji: 'toot:Emoji',
  focalPoint: { '@container': '@list', '@id': 'toot:focalPoint' },
  blurhash: 'toot:blurhash',
  votersCount: 'toot:votersCount',
  PropertyValue: 'schema:PropertyValue',
  value: 'schema:value',
};
