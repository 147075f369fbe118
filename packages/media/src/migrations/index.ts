import type { Migration, MigrationSet } from '@agora/db';
import { createRemoteMediaFiles } from './20261124000000-remote-media-files.js';
import { createMediaFileOrphans } from './20261124200000-media-file-orphans.js';

// Keep sorted by name: the runner refuses an unsorted set.
const migrations: Migration[] = [createRemoteMediaFiles, createMediaFileOrphans];

/** The tables this package owns (local copies of remote media, orphaned file keys); the runner puts its migrations on the app's one timeline (ADR 0013). */
export function mediaMigrationSet(): MigrationSet {
  return { owner: '@agora/media', migrations };
}
