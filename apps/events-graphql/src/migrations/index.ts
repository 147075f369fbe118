import type { MigrationSet } from '@agora/db';
import { createAdminSettings } from './20261122000000-create-admin-settings.js';

/** The migrations this service applies, in order: the packages' sets first, then the app's own. */
export function migrationSets(): MigrationSet[] {
  return [{ owner: 'events-graphql', migrations: [createAdminSettings] }];
}
