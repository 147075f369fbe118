import {
  addressSafelist,
  checkPasswordHashCostEnv,
  passwordHashCostEnv,
  passwordHashParams,
  type PasswordHashParams,
} from '@agora/auth';
import { z } from 'zod';
import {
  checkS3StorageEnv,
  s3StorageEnv,
  toS3StorageConfig,
  toUploadLimits,
  uploadLimitsEnv,
  type S3StorageConfig,
  type UploadLimits,
} from '@agora/media';
import {
  baseServiceEnv,
  envBoolean,
  envInt,
  envList,
  loadConfig as loadEnvConfig,
  toBaseServiceConfig,
  type BaseServiceConfig,
  type Env,
} from '@agora/core';

export const EXPORT_FORMATS = ['csv', 'pdf', 'ods'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];
export type RoutingType = 'OPENSTREETMAP' | 'GOOGLE_MAPS';

/** What the instance is and allows, from the environment; stored admin settings override part of it. */
export interface InstanceEnvConfig {
  name: string;
  description: string;
  /** ISO 639 codes of the languages the instance is run in. */
  languages: string[];
  registrationsOpen: boolean;
  /** Only these emails (or @domains) may register; empty = anyone. */
  registrationEmailAllowlist: string[];
  /** These emails (or @domains) may never register, whatever the other settings say. */
  registrationEmailDenylist: string[];
  demoMode: boolean;
  federating: boolean;
  anonymous: {
    participation: { allowed: boolean; emailRequired: boolean; emailConfirmation: boolean; captcha: boolean };
    eventCreation: { allowed: boolean; emailRequired: boolean; emailConfirmation: boolean; captcha: boolean };
    reports: { allowed: boolean };
  };
  geocoding: { provider: string };
  maps: { tilesEndpoint: string; tilesAttribution: string; routing: RoutingType };
  features: { groups: boolean; eventCreation: boolean; eventExternal: boolean };
  restrictions: { onlyAdminCanCreateGroups: boolean; onlyGroupsCanCreateEvents: boolean };
  uploadLimits: UploadLimits;
  instanceFeeds: boolean;
  databaseLogin: boolean;
  webPushPublicKey: string | undefined;
  exportFormats: ExportFormat[];
  /** Events longer than this many days are "long events"; 0 turns the distinction off. */
  longEventDays: number;
  globalSearch: { enabled: boolean; isDefault: boolean };
}

/** How much work one GraphQL operation may ask for, on every wire (HTTP and WebSocket alike). */
export interface GraphQLLimits {
  /** Lexical tokens of a document: stops huge documents before they are parsed into memory. */
  maxTokens: number;
  /** Nesting of fields (through fragments). */
  maxDepth: number;
  /** Aliased fields per operation: the way to ask for the same field many times. */
  maxAliases: number;
  /** Directives per operation. */
  maxDirectives: number;
  /** Cost: 1 per field, its selection multiplied by its `limit` argument (lists without one: by `unboundedListFactor`). */
  maxCost: number;
  unboundedListFactor: number;
  /** List items resolved by one execution: what a list the cost cannot foresee (all of a user's profiles) may add up to. */
  maxListItems: number;
  /** Bytes of one serialized answer. */
  maxResponseBytes: number;
}

/** How many items the cost analysis assumes for a list field that takes no `limit`. */
const UNBOUNDED_LIST_FACTOR = 3;

export interface EventsConfig extends BaseServiceConfig {
  instance: InstanceEnvConfig;
  graphql: {
    graphiql: boolean;
    /** How much work one operation may ask for, on HTTP and WebSocket alike. */
    limits: GraphQLLimits;
  };
  statistics: { cacheSeconds: number };
  media: {
    /** Files in an S3-compatible bucket (S3_ENABLED=true); null keeps them under `DATA_DIR/media/events`. */
    s3: S3StorageConfig | null;
  };
  auth: {
    /** Signs the JWT pairs; unset outside production, a generated one is kept in the data folder. */
    jwtSecret: string | undefined;
    /** Argon2id cost of password hashes (`PASSWORD_HASH_COST`; cheap only for test servers). */
    passwordHash: Readonly<PasswordHashParams>;
  };
  rateLimits: {
    /** Addresses and CIDR ranges never rate-limited (`RATE_LIMIT_SAFELIST`); empty by default. */
    safelist: string[];
  };
}

const schema = z
  .object({
    ...baseServiceEnv({ port: 4000 }),
    INSTANCE_NAME: z.string().default('My Agora Instance'),
    INSTANCE_DESCRIPTION: z.string().default('Change this to a proper description of your instance'),
    INSTANCE_LANGUAGES: envList([]),
    REGISTRATIONS_OPEN: envBoolean(false),
    REGISTRATION_EMAIL_ALLOWLIST: envList([]),
    REGISTRATION_EMAIL_DENYLIST: envList([]),
    DEMO_MODE: envBoolean(false),
    FEDERATING: envBoolean(true),
    ANONYMOUS_PARTICIPATION: envBoolean(true),
    ANONYMOUS_PARTICIPATION_EMAIL_REQUIRED: envBoolean(true),
    ANONYMOUS_PARTICIPATION_EMAIL_CONFIRMATION: envBoolean(true),
    ANONYMOUS_PARTICIPATION_CAPTCHA: envBoolean(false),
    ANONYMOUS_EVENT_CREATION: envBoolean(false),
    ANONYMOUS_EVENT_CREATION_EMAIL_REQUIRED: envBoolean(true),
    ANONYMOUS_EVENT_CREATION_EMAIL_CONFIRMATION: envBoolean(true),
    ANONYMOUS_EVENT_CREATION_CAPTCHA: envBoolean(false),
    ANONYMOUS_REPORTS: envBoolean(false),
    GEOCODING_PROVIDER: z.string().default('nominatim'),
    MAPS_TILES_ENDPOINT: z.string().default('https://{s}.tile.openstreetmap.org/{z}/{x}/{y}.png'),
    MAPS_TILES_ATTRIBUTION: z.string().default('© The OpenStreetMap Contributors'),
    MAPS_ROUTING_TYPE: z.enum(['OPENSTREETMAP', 'GOOGLE_MAPS']).default('OPENSTREETMAP'),
    GROUPS_ENABLED: envBoolean(true),
    EVENT_CREATION_ENABLED: envBoolean(true),
    EXTERNAL_EVENTS_ENABLED: envBoolean(true),
    ONLY_ADMIN_CAN_CREATE_GROUPS: envBoolean(false),
    ONLY_GROUPS_CAN_CREATE_EVENTS: envBoolean(false),
    ...uploadLimitsEnv(),
    ...s3StorageEnv(),
    INSTANCE_FEEDS_ENABLED: envBoolean(false),
    DATABASE_LOGIN_ENABLED: envBoolean(true),
    WEB_PUSH_PUBLIC_KEY: z.string().optional(),
    EXPORT_FORMATS: envList(['csv']).pipe(z.array(z.enum(EXPORT_FORMATS))),
    LONG_EVENT_DAYS: envInt(30),
    GLOBAL_SEARCH_ENABLED: envBoolean(false),
    GLOBAL_SEARCH_DEFAULT: envBoolean(false),
    GRAPHIQL_ENABLED: envBoolean(true),
    GRAPHQL_MAX_TOKENS: envInt(5_000, { min: 100 }),
    GRAPHQL_MAX_DEPTH: envInt(15, { min: 2 }),
    GRAPHQL_MAX_ALIASES: envInt(15, { min: 0 }),
    GRAPHQL_MAX_DIRECTIVES: envInt(50, { min: 0 }),
    GRAPHQL_MAX_COST: envInt(50_000, { min: 10 }),
    GRAPHQL_MAX_LIST_ITEMS: envInt(20_000, { min: 100 }),
    GRAPHQL_MAX_RESPONSE_BYTES: envInt(4 * 1024 * 1024, { min: 64 * 1024 }),
    STATISTICS_CACHE_SECONDS: envInt(60),
    // Comma-separated addresses or ranges; empty by default so that tests on loopback see the limits.
    RATE_LIMIT_SAFELIST: envList([]).refine(
      (entries) => {
        try {
          addressSafelist(entries);
          return true;
        } catch {
          return false;
        }
      },
      { message: 'must list IP addresses or CIDR ranges' },
    ),
    ...passwordHashCostEnv(),
    JWT_SECRET: z
      .string()
      .optional()
      .refine((secret) => secret === undefined || Buffer.byteLength(secret) >= 32, {
        message: 'must be at least 32 bytes long',
      }),
  })
  .superRefine((env, issues) => {
    if (env.NODE_ENV === 'production' && env.JWT_SECRET === undefined) {
      issues.addIssue({ code: 'custom', path: ['JWT_SECRET'], message: 'is required in production' });
    }
    checkS3StorageEnv(env, issues);
    checkPasswordHashCostEnv(env, issues);
  })
  .transform((env): EventsConfig => ({
    ...toBaseServiceConfig(env, 'events', 'agora_events'),
    instance: {
      name: env.INSTANCE_NAME,
      description: env.INSTANCE_DESCRIPTION,
      languages: env.INSTANCE_LANGUAGES,
      registrationsOpen: env.REGISTRATIONS_OPEN,
      registrationEmailAllowlist: env.REGISTRATION_EMAIL_ALLOWLIST,
      registrationEmailDenylist: env.REGISTRATION_EMAIL_DENYLIST,
      demoMode: env.DEMO_MODE,
      federating: env.FEDERATING,
      anonymous: {
        participation: {
          allowed: env.ANONYMOUS_PARTICIPATION,
          emailRequired: env.ANONYMOUS_PARTICIPATION_EMAIL_REQUIRED,
          emailConfirmation: env.ANONYMOUS_PARTICIPATION_EMAIL_CONFIRMATION,
          captcha: env.ANONYMOUS_PARTICIPATION_CAPTCHA,
        },
        eventCreation: {
          allowed: env.ANONYMOUS_EVENT_CREATION,
          emailRequired: env.ANONYMOUS_EVENT_CREATION_EMAIL_REQUIRED,
          emailConfirmation: env.ANONYMOUS_EVENT_CREATION_EMAIL_CONFIRMATION,
          captcha: env.ANONYMOUS_EVENT_CREATION_CAPTCHA,
        },
        reports: { allowed: env.ANONYMOUS_REPORTS },
      },
      geocoding: { provider: env.GEOCODING_PROVIDER },
      maps: {
        tilesEndpoint: env.MAPS_TILES_ENDPOINT,
        tilesAttribution: env.MAPS_TILES_ATTRIBUTION,
        routing: env.MAPS_ROUTING_TYPE,
      },
      features: {
        groups: env.GROUPS_ENABLED,
        eventCreation: env.EVENT_CREATION_ENABLED,
        eventExternal: env.EXTERNAL_EVENTS_ENABLED,
      },
      restrictions: {
        onlyAdminCanCreateGroups: env.ONLY_ADMIN_CAN_CREATE_GROUPS,
        onlyGroupsCanCreateEvents: env.ONLY_GROUPS_CAN_CREATE_EVENTS,
      },
      uploadLimits: toUploadLimits(env),
      instanceFeeds: env.INSTANCE_FEEDS_ENABLED,
      databaseLogin: env.DATABASE_LOGIN_ENABLED,
      webPushPublicKey: env.WEB_PUSH_PUBLIC_KEY,
      exportFormats: env.EXPORT_FORMATS,
      longEventDays: env.LONG_EVENT_DAYS,
      globalSearch: { enabled: env.GLOBAL_SEARCH_ENABLED, isDefault: env.GLOBAL_SEARCH_DEFAULT },
    },
    graphql: {
      graphiql: env.GRAPHIQL_ENABLED,
      limits: {
        maxTokens: env.GRAPHQL_MAX_TOKENS,
        maxDepth: env.GRAPHQL_MAX_DEPTH,
        maxAliases: env.GRAPHQL_MAX_ALIASES,
        maxDirectives: env.GRAPHQL_MAX_DIRECTIVES,
        maxCost: env.GRAPHQL_MAX_COST,
        unboundedListFactor: UNBOUNDED_LIST_FACTOR,
        maxListItems: env.GRAPHQL_MAX_LIST_ITEMS,
        maxResponseBytes: env.GRAPHQL_MAX_RESPONSE_BYTES,
      },
    },
    statistics: { cacheSeconds: env.STATISTICS_CACHE_SECONDS },
    media: { s3: toS3StorageConfig(env) },
    auth: { jwtSecret: env.JWT_SECRET, passwordHash: passwordHashParams(env.PASSWORD_HASH_COST) },
    rateLimits: { safelist: env.RATE_LIMIT_SAFELIST },
  }));

/** Reads the events service's configuration; every problem is reported at once as a ConfigError. */
export function loadConfig(env?: Env): EventsConfig {
  return loadEnvConfig(schema, env);
}
