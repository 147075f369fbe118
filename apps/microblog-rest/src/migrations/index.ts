import type { MigrationSet } from '@agora/db';
import { instanceSettingsAndRules } from './20261122000000-instance-settings-and-rules.js';

/** The migration sets this service applies, in order: packages' sets first, then the app's own. */
export function migrationSets(): MigrationSet[] {
  return [{ owner: 'microblog-rest', migrations: [instanceSettingsAndRules] }];
}
