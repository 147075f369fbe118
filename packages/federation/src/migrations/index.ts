import type { Migration, MigrationSet } from '@agora/db';
import { createActors } from './20261122200000-actors.js';
import { createDelivery } from './20261122200100-delivery.js';
import { createInbox } from './20261122200200-inbox.js';
import { createPush } from './20261122200300-push.js';
import { createReservedUsernames } from './20261124220000-reserved-usernames.js';
import { createFollowRequestsCount } from './20261124230000-follow-requests-count.js';
import { createFollowCounts } from './20261127030000-follow-counts.js';
import { createFollowOptions } from './20261127110000-follow-options.js';
import { createLocalActorsIndex } from './20261130100000-local-actors-index.js';

// Keep sorted by name: the runner refuses an unsorted set.
const migrations: Migration[] = [
  createActors,
  createDelivery,
  createInbox,
  createPush,
  createReservedUsernames,
  createFollowRequestsCount,
  createFollowCounts,
  createFollowOptions,
  createLocalActorsIndex,
];

/** The tables this package owns (actors, follows, inbox receipts, domain blocks, deliveries, PuSH); the runner puts its migrations on the app's one timeline (ADR 0013). */
export function federationMigrationSet(): MigrationSet {
  return { owner: '@agora/federation', migrations };
}
