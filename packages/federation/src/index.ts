export * from './nodeinfo/index.js';
export * from './actors/index.js';
export { federationMigrationSet } from './migrations/index.js';
export * from './signatures/index.js';
export * from './fetch/index.js';
export * from './sanitize/index.js';
export * from './inbox/index.js';
export { DomainBlocks, type DomainBlock, type DomainBlockSeverity } from './moderation/domain-blocks.js';
export {
  Federation,
  FEDERATION_JOBS,
  type FederationOptions,
  type FollowPolicy,
  type BlockListener,
  type FollowTransport,
  type AccountResolver,
} from './federation.js';
export * from './discovery/index.js';
export * from './jsonld/index.js';
export * from './delivery/index.js';
export * from './push/index.js';
export {
  collectionPageOf,
  orderedCollection,
  orderedCollectionPage,
  MAX_COLLECTION_PAGE,
} from './collections/paged-collection.js';
