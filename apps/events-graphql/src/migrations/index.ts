import { authMigrationSet } from '@agora/auth';
import type { MigrationSet } from '@agora/db';
import { federationMigrationSet } from '@agora/federation';
import { mediaMigrationSet } from '@agora/media';
import { createAdminSettings } from './20261122000000-create-admin-settings.js';
import { createUserSettings } from './20261122110000-create-user-settings.js';
import { actorOwners } from './20261122130000-actor-owners.js';
import { createMedia } from './20261123090000-create-media.js';
import { mediaOrphanKeys } from './20261124210000-media-orphan-keys.js';

/** The migrations this service applies, in order: the packages' sets first, then the app's own. */
export function migrationSets(): MigrationSet[] {
  return [
    authMigrationSet(),
    federationMigrationSet(),
    mediaMigrationSet(),
    {
      owner: 'events-graphql',
      migrations: [createAdminSettings, createUserSettings, actorOwners, createMedia, mediaOrphanKeys],
    },
  ];
}
