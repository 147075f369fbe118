import { authMigrationSet } from '@agora/auth';
import type { MigrationSet } from '@agora/db';
import { federationMigrationSet } from '@agora/federation';
import { mediaMigrationSet } from '@agora/media';
import { instanceSettingsAndRules } from './20261122000000-instance-settings-and-rules.js';
import { oauth } from './20261122010000-oauth.js';
import { sessionsTwoFactor } from './20261122020000-sessions-two-factor.js';
import { accountOwners } from './20261122030000-account-owners.js';
import { accountSettings } from './20261122040000-account-settings.js';
import { mediaAttachments } from './20261123000000-media-attachments.js';
import { mediaOrphanKeys } from './20261124210000-media-orphan-keys.js';

/** The migration sets this service applies, in order: packages' sets first, then the app's own. */
export function migrationSets(): MigrationSet[] {
  return [
    authMigrationSet(),
    federationMigrationSet(),
    mediaMigrationSet(),
    {
      owner: 'microblog-rest',
      migrations: [
        instanceSettingsAndRules,
        oauth,
        sessionsTwoFactor,
        accountOwners,
        accountSettings,
        mediaAttachments,
        mediaOrphanKeys,
      ],
    },
  ];
}
