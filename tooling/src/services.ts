import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as events from '@agora/events-graphql';
import * as microblog from '@agora/microblog-rest';
import type { Role } from '@agora/auth';
import type { BaseServiceConfig, Env, ServiceName } from '@agora/core';
import type { MigrationSet } from '@agora/db';
import type { Federation } from '@agora/federation';

/** What the launcher and the admin CLI need to know of each service. */
export interface ServiceEntry {
  name: ServiceName;
  label: string;
  /** Variables prefixed with this (EVENTS_PORT) reach only this service, unprefixed (PORT). */
  envPrefix: string;
  /** The built entry point, started as its own process. */
  mainPath: string;
  loadConfig(env: Env): BaseServiceConfig;
  migrationSets(): MigrationSet[];
  /** Where a person starts, printed once the service is up. */
  landing(config: BaseServiceConfig): string[];
  /**
   * The service's own code for the admin tool (config.db.url must be set): a context that only
   * enqueues (its workers run in the service's processes). Close it when done.
   */
  openAdmin(config: BaseServiceConfig): Promise<AdminContext>;
}

export interface AdminContext {
  createUser(input: AdminUserInput): Promise<AdminUserResult>;
  /** Dead letters, domain blocks (packages/federation). */
  federation: Federation;
  /** The instance's announcements (microblog only). */
  announcements?: AdminAnnouncements;
  close(): Promise<void>;
}

/** An announcement as the admin tool shows it. */
export interface AdminAnnouncement {
  id: string;
  text: string;
  startsAt: Date | null;
  endsAt: Date | null;
  allDay: boolean;
  /** Null: a draft. */
  publishedAt: Date | null;
}

export interface AdminAnnouncements {
  create(input: {
    text: string;
    startsAt?: Date | null;
    endsAt?: Date | null;
    allDay?: boolean;
    published?: boolean;
  }): Promise<AdminAnnouncement>;
  all(): Promise<AdminAnnouncement[]>;
  setPublished(id: string, published: boolean): Promise<AdminAnnouncement>;
  remove(id: string): Promise<void>;
}

export interface AdminUserInput {
  email: string;
  password: string;
  username?: string;
  role: Role;
  confirmed: boolean;
}

export interface AdminUserResult {
  userId: string;
  confirmationToken: string | null;
  /** The profile (events) or account (microblog) actor, when a username was given. */
  actorId: string | null;
}

/** Opens an app context in the web role (it enqueues, never runs jobs) with its queue started. */
async function openWebContext<C extends { queue: { start(): Promise<void> }; close(): Promise<void> }>(
  open: () => Promise<C>,
): Promise<C> {
  const ctx = await open();
  try {
    await ctx.queue.start();
    return ctx;
  } catch (error) {
    await ctx.close();
    throw error;
  }
}

export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

export const services: ServiceEntry[] = [
  {
    name: 'events',
    label: 'Events (GraphQL)',
    envPrefix: 'EVENTS_',
    mainPath: join(repoRoot, 'apps', 'events-graphql', 'dist', 'main.js'),
    loadConfig: (env) => events.loadConfig(env),
    migrationSets: () => events.migrationSets(),
    landing: (config) => [
      `GraphQL API  ${config.http.publicUrl}/api`,
      `GraphiQL     ${config.http.publicUrl}/graphiql`,
    ],
    openAdmin: async (config) => {
      const ctx = await openWebContext(() =>
        events.AppContext.fromConfig({ ...(config as events.EventsConfig), role: 'web' }),
      );
      return {
        federation: ctx.federation,
        close: () => ctx.close(),
        createUser: async (input) => {
          const created = await events.adminCreateUser(ctx, input);
          return { ...created, actorId: created.profileId };
        },
      };
    },
  },
  {
    name: 'microblog',
    label: 'Microblog (REST)',
    envPrefix: 'MICROBLOG_',
    mainPath: join(repoRoot, 'apps', 'microblog-rest', 'dist', 'main.js'),
    loadConfig: (env) => microblog.loadConfig(env),
    migrationSets: () => microblog.migrationSets(),
    landing: (config) => [
      `REST API     ${config.http.publicUrl}/api/v1/instance`,
      `NodeInfo     ${config.http.publicUrl}/.well-known/nodeinfo`,
    ],
    openAdmin: async (config) => {
      const ctx = await openWebContext(() =>
        microblog.AppContext.fromConfig({ ...(config as microblog.MicroblogConfig), role: 'web' }),
      );
      return {
        federation: ctx.federation,
        announcements: ctx.announcements,
        close: () => ctx.close(),
        createUser: async (input) => {
          const created = await microblog.adminCreateUser(ctx, input);
          return { ...created, actorId: created.accountId };
        },
      };
    },
  },
];

export function findService(name: string): ServiceEntry {
  const entry = services.find((service) => service.name === name);
  if (!entry)
    throw new Error(`unknown service "${name}" (expected ${services.map((s) => s.name).join(' or ')})`);
  return entry;
}

/**
 * The environment one service sees when several run from one shell: EVENTS_PORT=4100 becomes
 * PORT=4100 for the events service only; other services' prefixed variables are dropped.
 */
export function serviceEnv(entry: ServiceEntry, env: Env): Env {
  const prefixes = services.map((service) => service.envPrefix);
  const result: Env = {};
  for (const [key, value] of Object.entries(env)) {
    if (!prefixes.some((prefix) => key.startsWith(prefix))) result[key] = value;
  }
  for (const [key, value] of Object.entries(env)) {
    if (key.startsWith(entry.envPrefix)) result[key.slice(entry.envPrefix.length)] = value;
  }
  return result;
}

/** Host, port and database of a PostgreSQL URL: two URLs naming the same database compare equal. */
function databaseIdentity(url: string): string {
  if (!URL.canParse(url)) return url;
  const parsed = new URL(url);
  return `${parsed.hostname.toLowerCase()}:${parsed.port || '5432'}${decodeURIComponent(parsed.pathname)}`;
}

/**
 * Each service needs a database of its own (both create the package tables: users, actors, media…):
 * the reason to refuse when `entries` would share one, as an unprefixed DATABASE_URL makes them do.
 */
export function sharedDatabaseProblem(entries: readonly ServiceEntry[], env: Env): string | undefined {
  const byDatabase = new Map<string, string[]>();
  for (const entry of entries) {
    const url = serviceEnv(entry, env).DATABASE_URL;
    if (!url) continue;
    const key = databaseIdentity(url);
    byDatabase.set(key, [...(byDatabase.get(key) ?? []), entry.name]);
  }
  for (const names of byDatabase.values()) {
    if (names.length < 2) continue;
    const prefixed = entries.map((entry) => `${entry.envPrefix}DATABASE_URL`).join(' and ');
    return (
      `the ${names.join(' and ')} services would share one database: each needs its own. ` +
      `Set ${prefixed} to two databases, or leave DATABASE_URL unset to use the embedded PostgreSQL.`
    );
  }
  return undefined;
}

/** A config printed for people: credentials in URLs are masked. */
export function redactConfig(config: BaseServiceConfig): unknown {
  const mask = (url: string | undefined) => {
    if (!url || !URL.canParse(url)) return url;
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '*****';
    return parsed.toString();
  };
  return {
    ...config,
    db: { ...config.db, url: mask(config.db.url) },
    mail: { ...config.mail, smtpUrl: mask(config.mail.smtpUrl) },
  };
}
