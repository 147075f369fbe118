export { RemoteMediaCache, type RemoteMediaCacheOptions } from './remote-media.cache.js';
export { RemoteMediaJobs, CACHE_REMOTE_MEDIA_JOB, type ActorImages } from './remote-media.jobs.js';
export * from './remote-media.types.js';
export { mediaMigrationSet } from '../migrations/index.js';
