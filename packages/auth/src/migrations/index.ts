import type { Migration, MigrationSet } from '@agora/db';
import { rateLimitCounters } from './20261122100000-rate-limit-counters.js';
import { createUsers } from './20261122100100-users.js';
import { createRefreshTokens } from './20261122100200-refresh-tokens.js';

// Keep sorted by name: the runner refuses an unsorted set.
const migrations: Migration[] = [rateLimitCounters, createUsers, createRefreshTokens];

/** The tables this package owns; the runner puts its migrations on the app's one timeline (ADR 0013). */
export function authMigrationSet(): MigrationSet {
  return { owner: '@agora/auth', migrations };
}
