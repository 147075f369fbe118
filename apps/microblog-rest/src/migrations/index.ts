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
import { statuses } from './20261127100000-statuses.js';
import { relationships } from './20261127110100-relationships.js';
import { notificationsAndFilters } from './20261127122000-notifications-and-filters.js';
import { polls } from './20261127123000-polls.js';
import { scheduledStatuses } from './20261127123100-scheduled-statuses.js';
import { markers } from './20261127123200-markers.js';
import { lists } from './20261127123300-lists.js';
import { accountConversations } from './20261127123400-account-conversations.js';
import { announcements } from './20261127124000-announcements.js';
import { accountStatusesIndexes } from './20261127140000-account-statuses-indexes.js';
import { searchAndFollowedTags } from './20261127146000-search-and-followed-tags.js';
import { remoteMediaAttachments } from './20261127147000-remote-media-attachments.js';
import { previewCardsAndWebPush } from './20261127148000-preview-cards-and-web-push.js';
import { renderStamps } from './20261128100000-render-stamps.js';
import { streamingRelations } from './20261128140000-streaming-relations.js';
import { statusesSearchDocument } from './20261128150000-statuses-search-document.js';
import { homeViewerStamps } from './20261129130000-home-viewer-stamps.js';
import { homeAccountRowStamps } from './20261130120000-home-account-row-stamps.js';

// Four migrations carry timestamps from before the package tables they need; the runner places them
// after the last migration of that package when they landed (their stored names stay). ADR 0013.
const AFTER_AUTH = '@agora/auth/20261122100200-refresh-tokens';
const AFTER_FEDERATION = '@agora/federation/20261122200200-inbox';

/** The migration sets this service applies; the runner orders them on one timeline (ADR 0013). */
export function migrationSets(): MigrationSet[] {
  return [
    authMigrationSet(),
    federationMigrationSet(),
    mediaMigrationSet(),
    {
      owner: 'microblog-rest',
      migrations: [
        instanceSettingsAndRules,
        { ...oauth, placedAfter: AFTER_AUTH },
        { ...sessionsTwoFactor, placedAfter: AFTER_AUTH },
        { ...accountOwners, placedAfter: AFTER_FEDERATION },
        { ...accountSettings, placedAfter: AFTER_FEDERATION },
        mediaAttachments,
        mediaOrphanKeys,
        statuses,
        relationships,
        notificationsAndFilters,
        polls,
        scheduledStatuses,
        markers,
        lists,
        accountConversations,
        announcements,
        accountStatusesIndexes,
        searchAndFollowedTags,
        remoteMediaAttachments,
        previewCardsAndWebPush,
        renderStamps,
        streamingRelations,
        statusesSearchDocument,
        homeViewerStamps,
        homeAccountRowStamps,
      ],
    },
  ];
}
