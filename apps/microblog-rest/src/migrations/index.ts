import { authMigrationSet } from '@agora/auth';
import type { MigrationSet } from '@agora/db';
import { instanceSettingsAndRules } from './20261122000000-instance-settings-and-rules.js';
import { oauth } from './20261122010000-oauth.js';
import { sessionsTwoFactor } from './20261122020000-sessions-two-factor.js';

/** The migration sets this service applies, in order: packages' sets first, then the app's own. */
export function migrationSets(): MigrationSet[] {
  return [
    authMigrationSet(),
    { owner: 'microblog-rest', migrations: [instanceSettingsAndRules, oauth, sessionsTwoFactor] },
  ];
}
