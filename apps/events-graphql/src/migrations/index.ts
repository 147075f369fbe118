import { authMigrationSet } from '@agora/auth';
import type { MigrationSet } from '@agora/db';
import { federationMigrationSet } from '@agora/federation';
import { mediaMigrationSet } from '@agora/media';
import { createAdminSettings } from './20261122000000-create-admin-settings.js';
import { createUserSettings } from './20261122110000-create-user-settings.js';
import { actorOwners } from './20261122130000-actor-owners.js';
import { createMedia } from './20261123090000-create-media.js';
import { mediaOrphanKeys } from './20261124210000-media-orphan-keys.js';
import { profileLinksOwnTables } from './20261127040000-profile-links-own-tables.js';
import { signedInClientTables } from './20261127050000-signed-in-client-tables.js';
import { createEvents } from './20261127060000-create-events.js';
import { createParticipants } from './20261127070000-create-participants.js';
import { createActionLogs } from './20261127080000-create-action-logs.js';
import { createComments } from './20261127080100-create-comments.js';
import { eventDetails } from './20261127090000-event-details.js';
import { createParticipantExports } from './20261127120000-create-participant-exports.js';
import { createGroups } from './20261127125000-create-groups.js';
import { eventAnswerGeneration } from './20261127130000-event-answer-generation.js';
import { createPostsDiscussionsActivities } from './20261127142000-create-posts-discussions-activities.js';
import { createResourcesAndTodos } from './20261127143000-create-resources-and-todos.js';
import { createConversations } from './20261127144000-create-conversations.js';
import { groupAnswerGeneration } from './20261129100000-group-answer-generation.js';

// `actorOwners` carries a timestamp from before `actors`; the runner places it after the last
// federation migration when it landed (its stored name stays). ADR 0013.
const AFTER_FEDERATION = '@agora/federation/20261122200200-inbox';

/** The migration sets this service applies; the runner orders them on one timeline (ADR 0013). */
export function migrationSets(): MigrationSet[] {
  return [
    authMigrationSet(),
    federationMigrationSet(),
    mediaMigrationSet(),
    {
      owner: 'events-graphql',
      migrations: [
        createAdminSettings,
        createUserSettings,
        { ...actorOwners, placedAfter: AFTER_FEDERATION },
        createMedia,
        mediaOrphanKeys,
        profileLinksOwnTables,
        signedInClientTables,
        createEvents,
        createParticipants,
        createActionLogs,
        createComments,
        eventDetails,
        createParticipantExports,
        createGroups,
        eventAnswerGeneration,
        createPostsDiscussionsActivities,
        createResourcesAndTodos,
        createConversations,
        groupAnswerGeneration,
      ],
    },
  ];
}
