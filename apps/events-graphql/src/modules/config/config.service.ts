import type { Sequelize } from 'sequelize';
import { z } from 'zod';
import { BadInput, Internal, type Logger, type PubSub, type Unsubscribe } from '@agora/core';
import type { InstanceEnvConfig } from '../../config/config.js';
import type { AdminSettingAttributes, AdminSettingModel } from './admin-setting.model.js';
import { EVENT_CATEGORIES } from './event-categories.js';
import { LegalDocuments, type LegalDocumentType } from './legal-documents.js';

/**
 * The `Config` object the `config` query returns, built once per settings change. `terms` and `privacy`
 * take a locale, so they are resolved from `legal`; everything else is a plain value (the resolvers
 * check at compile time that it has every field of the GraphQL `Config`).
 */
export type InstanceConfig = ReturnType<typeof buildInstanceConfig>;

/** A picture as stored in a setting: the media's public fields, so `config` needs no database read. */
const mediaSnapshot = z.object({
  id: z.string(),
  url: z.string(),
  name: z.string().nullable().default(null),
  alt: z.string().nullable().default(null),
  contentType: z.string().nullable().default(null),
  size: z.number().int().nullable().default(null),
  metadata: z
    .object({
      width: z.number().int().nullable().default(null),
      height: z.number().int().nullable().default(null),
      blurhash: z.string().nullable().default(null),
    })
    .nullable()
    .default(null),
});
export type MediaSnapshot = z.output<typeof mediaSnapshot>;

const documentType = z.enum(['DEFAULT', 'CUSTOM', 'URL']);

/** Every stored setting and the shape of its value; names are those of the GraphQL `AdminSettings`. */
const storedSettings = z.object({
  instanceName: z.string(),
  instanceDescription: z.string(),
  instanceLongDescription: z.string(),
  instanceSlogan: z.string(),
  contact: z.string(),
  instanceTerms: z.string(),
  instanceTermsType: documentType,
  instanceTermsUrl: z.string(),
  instancePrivacyPolicy: z.string(),
  instancePrivacyPolicyType: documentType,
  instancePrivacyPolicyUrl: z.string(),
  instanceRules: z.string(),
  registrationsOpen: z.boolean(),
  instanceLanguages: z.array(z.string()),
  instanceLogo: mediaSnapshot,
  instanceFavicon: mediaSnapshot,
  defaultPicture: mediaSnapshot,
  primaryColor: z.string(),
  secondaryColor: z.string(),
});
export type StoredSettings = Partial<z.output<typeof storedSettings>>;
export type SettingKey = keyof z.output<typeof storedSettings>;

/** A change to the stored settings: a value sets the key, `null` removes it (back to the default). */
export type SettingsPatch = { [K in SettingKey]?: z.input<typeof storedSettings>[K] | null };

/** The effective settings, stored values over the environment's defaults (the GraphQL `AdminSettings`). */
export interface AdminSettings {
  instanceName: string;
  instanceDescription: string;
  instanceLongDescription: string | null;
  instanceSlogan: string | null;
  contact: string | null;
  instanceTerms: string | null;
  instanceTermsType: LegalDocumentType;
  instanceTermsUrl: string | null;
  instancePrivacyPolicy: string | null;
  instancePrivacyPolicyType: LegalDocumentType;
  instancePrivacyPolicyUrl: string | null;
  instanceRules: string | null;
  registrationsOpen: boolean;
  instanceLanguages: string[];
  instanceLogo: MediaSnapshot | null;
  instanceFavicon: MediaSnapshot | null;
  defaultPicture: MediaSnapshot | null;
  primaryColor: string | null;
  secondaryColor: string | null;
}

/** Published (with no payload) whenever a process changes the stored settings. */
export const ADMIN_SETTINGS_CHANNEL = 'events.admin-settings.changed';

/** Every IANA zone the runtime knows (its list leaves out UTC itself); fixed for the life of the process. */
const TIMEZONES: readonly string[] = Object.freeze(
  [...new Set([...Intl.supportedValuesOf('timeZone'), 'UTC'])].sort(),
);

interface InstanceFacts {
  env: InstanceEnvConfig;
  domain: string;
  version: string;
  /** The instance's anonymous actor (the participations module creates it). */
  anonymousActorId: string | null;
}

export function effectiveSettings(env: InstanceEnvConfig, stored: StoredSettings): AdminSettings {
  return {
    instanceName: stored.instanceName ?? env.name,
    instanceDescription: stored.instanceDescription ?? env.description,
    instanceLongDescription: stored.instanceLongDescription ?? null,
    instanceSlogan: stored.instanceSlogan ?? null,
    contact: stored.contact ?? null,
    instanceTerms: stored.instanceTerms ?? null,
    instanceTermsType: stored.instanceTermsType ?? 'DEFAULT',
    instanceTermsUrl: stored.instanceTermsUrl ?? null,
    instancePrivacyPolicy: stored.instancePrivacyPolicy ?? null,
    instancePrivacyPolicyType: stored.instancePrivacyPolicyType ?? 'DEFAULT',
    instancePrivacyPolicyUrl: stored.instancePrivacyPolicyUrl ?? null,
    instanceRules: stored.instanceRules ?? null,
    registrationsOpen: stored.registrationsOpen ?? env.registrationsOpen,
    instanceLanguages: stored.instanceLanguages ?? env.languages,
    instanceLogo: stored.instanceLogo ?? null,
    instanceFavicon: stored.instanceFavicon ?? null,
    defaultPicture: stored.defaultPicture ?? null,
    primaryColor: stored.primaryColor ?? null,
    secondaryColor: stored.secondaryColor ?? null,
  };
}

function toMedia(snapshot: MediaSnapshot | null): MediaSnapshot | null {
  return snapshot && { ...snapshot, metadata: snapshot.metadata };
}

/** Builds the whole `Config` object from the environment and the effective settings. */
export function buildInstanceConfig(
  { env, domain, version, anonymousActorId }: InstanceFacts,
  settings: AdminSettings,
) {
  const { anonymous } = env;
  return {
    name: settings.instanceName,
    description: settings.instanceDescription,
    longDescription: settings.instanceLongDescription,
    slogan: settings.instanceSlogan,
    contact: settings.contact,
    rules: settings.instanceRules,
    languages: settings.instanceLanguages,
    registrationsOpen: settings.registrationsOpen,
    registrationsAllowlist: env.registrationEmailAllowlist.length > 0,
    demoMode: env.demoMode,
    federating: env.federating,
    version,
    // No GeoIP database is shipped: the caller's country and location are unknown.
    countryCode: null,
    location: null,
    instanceLogo: toMedia(settings.instanceLogo),
    defaultPicture: toMedia(settings.defaultPicture),
    primaryColor: settings.primaryColor,
    secondaryColor: settings.secondaryColor,
    eventCategories: EVENT_CATEGORIES.map((category) => ({ ...category })),
    anonymous: {
      actorId: anonymousActorId,
      participation: {
        allowed: anonymous.participation.allowed,
        validation: {
          email: {
            enabled: anonymous.participation.emailRequired,
            confirmationRequired: anonymous.participation.emailConfirmation,
          },
          captcha: { enabled: anonymous.participation.captcha },
        },
      },
      eventCreation: {
        allowed: anonymous.eventCreation.allowed,
        validation: {
          email: {
            enabled: anonymous.eventCreation.emailRequired,
            confirmationRequired: anonymous.eventCreation.emailConfirmation,
          },
          captcha: { enabled: anonymous.eventCreation.captcha },
        },
      },
      reports: { allowed: anonymous.reports.allowed },
    },
    geocoding: {
      provider: env.geocoding.provider,
      // Nominatim's usage policy forbids autocompletion; every other provider allows it.
      autocomplete: env.geocoding.provider !== 'nominatim',
    },
    maps: {
      tiles: { endpoint: env.maps.tilesEndpoint, attribution: env.maps.tilesAttribution },
      routing: { type: env.maps.routing },
    },
    resourceProviders: [],
    timezones: [...TIMEZONES],
    features: {
      groups: env.features.groups,
      eventCreation: env.features.eventCreation,
      eventExternal: env.features.eventExternal,
      antispam: false,
    },
    restrictions: { ...env.restrictions },
    auth: { ldap: false, databaseLogin: env.databaseLogin, oauthProviders: [] },
    uploadLimits: { ...env.uploadLimits },
    instanceFeeds: { enabled: env.instanceFeeds },
    webPush: { enabled: env.webPushPublicKey !== undefined, publicKey: env.webPushPublicKey ?? null },
    exportFormats: { eventParticipants: [...env.exportFormats] },
    analytics: [],
    search: { global: { isEnabled: env.globalSearch.enabled, isDefault: env.globalSearch.isDefault } },
    longEvents: env.longEventDays > 0,
    durationOfLongEvent: env.longEventDays,
    legal: new LegalDocuments(
      { name: settings.instanceName, domain, contact: settings.contact },
      {
        terms: {
          type: settings.instanceTermsType,
          url: settings.instanceTermsUrl,
          body: settings.instanceTerms,
        },
        privacy: {
          type: settings.instancePrivacyPolicyType,
          url: settings.instancePrivacyPolicyUrl,
          body: settings.instancePrivacyPolicy,
        },
      },
    ),
  };
}

export interface InstanceConfigServiceDeps {
  env: InstanceEnvConfig;
  domain: string;
  version: string;
  sequelize: Sequelize;
  model: AdminSettingModel;
  pubsub: PubSub;
  logger: Logger;
  /** The id of the instance's anonymous actor, created on first call; without it `actorId` is null. */
  anonymousActorId?: () => Promise<string>;
}

/**
 * Holds the instance's configuration in memory: the `config` query reads it without any work. It is
 * rebuilt from the `admin_settings` table at start and whenever any process (this one included)
 * announces a change on the pub/sub channel.
 */
export class InstanceConfigService {
  private state: { settings: AdminSettings; config: InstanceConfig } | null = null;
  private unsubscribe: Unsubscribe | null = null;
  private readonly listeners = new Set<(config: InstanceConfig) => void>();
  /** Reloads run one after the other, so the last one to finish saw the latest rows. */
  private reloading: Promise<void> = Promise.resolve();

  constructor(private readonly deps: InstanceConfigServiceDeps) {}

  /** Loads the stored settings and follows changes made by other processes. */
  async start(): Promise<void> {
    // Subscribe first: a change announced while the first load runs still triggers a reload.
    this.unsubscribe ??= await this.deps.pubsub.subscribe(ADMIN_SETTINGS_CHANNEL, () => {
      this.reload().catch((err: unknown) =>
        this.deps.logger.error({ err }, 'could not reload the instance settings'),
      );
    });
    await this.reload();
  }

  async stop(): Promise<void> {
    const unsubscribe = this.unsubscribe;
    this.unsubscribe = null;
    await unsubscribe?.();
    await this.reloading.catch(() => undefined);
  }

  /** Calls `listener` after each rebuild of the configuration; returns the function that stops it. */
  onChange(listener: (config: InstanceConfig) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The current `Config` object. */
  config(): InstanceConfig {
    return this.loaded().config;
  }

  /** The effective admin settings. */
  settings(): AdminSettings {
    return this.loaded().settings;
  }

  /** Stores a change in one transaction, rebuilds the configuration and tells the other processes. */
  async save(patch: SettingsPatch): Promise<AdminSettings> {
    const keys = Object.keys(patch).filter((key) => patch[key as SettingKey] !== undefined) as SettingKey[];
    const parsed = storedSettings
      .partial()
      .strict()
      .safeParse(
        Object.fromEntries(keys.filter((key) => patch[key] !== null).map((key) => [key, patch[key]])),
      );
    if (!parsed.success) {
      const fields: Record<string, string[]> = {};
      for (const issue of parsed.error.issues) {
        (fields[issue.path.length > 0 ? String(issue.path[0]) : 'settings'] ??= []).push(issue.message);
      }
      throw new BadInput('Invalid instance settings', { fields });
    }
    const set = parsed.data;
    const removed = keys.filter((key) => patch[key] === null);
    const { model, sequelize } = this.deps;
    await sequelize.transaction(async (transaction) => {
      const rows = Object.entries(set).map(([key, value]) => ({ key, value }));
      if (rows.length > 0) {
        await model.bulkCreate(rows, { updateOnDuplicate: ['value', 'updatedAt'], transaction });
      }
      if (removed.length > 0) await model.destroy({ where: { key: removed }, transaction });
    });
    await this.reload();
    await this.deps.pubsub.publish(ADMIN_SETTINGS_CHANNEL, {});
    return this.settings();
  }

  reload(): Promise<void> {
    const run = this.reloading.then(() => this.load());
    this.reloading = run.catch(() => undefined);
    return run;
  }

  private async load(): Promise<void> {
    const rows = (await this.deps.model.findAll({ raw: true })) as unknown as AdminSettingAttributes[];
    const stored: Record<string, unknown> = {};
    for (const row of rows) {
      const shape = Object.hasOwn(storedSettings.shape, row.key)
        ? (storedSettings.shape[row.key as SettingKey] as z.ZodType)
        : undefined;
      const parsed = shape?.safeParse(row.value);
      if (parsed?.success) stored[row.key] = parsed.data;
      else this.deps.logger.warn({ key: row.key }, 'ignoring an unknown or malformed instance setting');
    }
    const settings = effectiveSettings(this.deps.env, stored as StoredSettings);
    const anonymousActorId = (await this.deps.anonymousActorId?.()) ?? null;
    const config = buildInstanceConfig({ ...this.deps, anonymousActorId }, settings);
    this.state = { settings, config };
    for (const listener of [...this.listeners]) listener(config);
  }

  private loaded(): { settings: AdminSettings; config: InstanceConfig } {
    if (!this.state) throw new Internal('The instance configuration is not loaded yet');
    return this.state;
  }
}
