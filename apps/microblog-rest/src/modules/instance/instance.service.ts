import { z } from 'zod';
import type { Sequelize } from 'sequelize';
import { BadInput, NotFound, type FieldErrors, type Logger } from '@agora/core';
import type { InstanceDefaults, MicroblogConfig, MicroblogLimits } from '../../config/config.js';
import { INSTANCE_VERSION } from '../../version.js';
import { defineInstanceRuleModel, type InstanceRuleModel } from './instance-rule.model.js';
import { defineInstanceSettingModel, type InstanceSettingModel } from './instance-setting.model.js';
import type { InstanceStats, InstanceStatsRegistry } from './instance-stats.js';

/** The settings an administrator may change at run time; configuration supplies their defaults. */
export type InstanceSettings = InstanceDefaults;

export interface InstanceRule {
  id: string;
  text: string;
  hint: string;
}

/** Everything the instance documents (v1, v2, rules, NodeInfo) are rendered from. */
export interface InstanceView extends InstanceSettings {
  /** host[:port] of the public URL. */
  domain: string;
  publicUrl: string;
  version: string;
  sourceUrl: string | null;
  /** The banner: the configured one, else the built-in image this server serves. */
  thumbnailUrl: string;
  streamingUrl: string;
  /** Web Push's VAPID public key (base64url), null when push is not offered. */
  vapidPublicKey: string | null;
  limits: MicroblogLimits;
  rules: InstanceRule[];
  stats: InstanceStats;
}

/** Where the built-in banner is served (see src/assets/preview-image.ts). */
export const PREVIEW_IMAGE_PATH = '/images/preview.png';

// Each setting: its stored key (snake_case, like the API) and the schema its value must satisfy.
const SETTINGS = {
  title: { key: 'title', schema: z.string().trim().min(1).max(200) },
  shortDescription: { key: 'short_description', schema: z.string().max(1000) },
  description: { key: 'description', schema: z.string().max(20_000) },
  contactEmail: { key: 'contact_email', schema: z.union([z.email(), z.literal('')]) },
  registrationsOpen: { key: 'registrations_open', schema: z.boolean() },
  approvalRequired: { key: 'approval_required', schema: z.boolean() },
  closedRegistrationsMessage: {
    key: 'closed_registrations_message',
    schema: z.string().max(5000).nullable(),
  },
  languages: {
    key: 'languages',
    schema: z
      .array(z.string().regex(/^[a-z]{2}$/, 'must be an ISO 639-1 code'))
      .min(1)
      .max(50),
  },
} satisfies Record<keyof InstanceSettings, { key: string; schema: z.ZodType }>;

type SettingName = keyof typeof SETTINGS;
const SETTING_NAMES = Object.keys(SETTINGS) as SettingName[];
const NAME_BY_KEY = new Map(SETTING_NAMES.map((name) => [SETTINGS[name].key, name]));

const patchSchema = z.strictObject(
  Object.fromEntries(SETTING_NAMES.map((name) => [name, SETTINGS[name].schema.optional()])) as {
    [K in SettingName]: z.ZodOptional<(typeof SETTINGS)[K]['schema']>;
  },
);

const ruleSchema = z.object({
  text: z.string().trim().min(1).max(300),
  hint: z.string().trim().max(2000).default(''),
  priority: z.number().int().min(-1000).max(1000).default(0),
});

export type InstanceChangeListener = () => Promise<void> | void;

export interface InstanceServiceDeps {
  config: MicroblogConfig;
  sequelize: Sequelize;
  stats: InstanceStatsRegistry;
  logger: Logger;
  /** Web Push's VAPID public key, published in v2 `configuration.vapid` (modules/push). */
  vapidPublicKey?: string | null;
}

/** The instance's own description: configuration overlaid by stored settings, its rules and usage. */
export class InstanceService {
  private readonly settingModel: InstanceSettingModel;
  private readonly ruleModel: InstanceRuleModel;
  private readonly listeners = new Set<InstanceChangeListener>();

  constructor(private readonly deps: InstanceServiceDeps) {
    this.settingModel = defineInstanceSettingModel(deps.sequelize);
    this.ruleModel = defineInstanceRuleModel(deps.sequelize);
  }

  /** Called (and awaited) after every committed change to settings or rules in this process. */
  onChange(listener: InstanceChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  async settings(): Promise<InstanceSettings> {
    const settings: InstanceSettings = {
      ...this.deps.config.instance,
      languages: [...this.deps.config.instance.languages],
    };
    const rows = await this.settingModel.findAll();
    for (const row of rows) {
      const name = NAME_BY_KEY.get(row.key);
      if (!name) continue; // a key a newer or older version wrote
      const parsed = SETTINGS[name].schema.safeParse(row.value);
      if (!parsed.success) {
        this.deps.logger.warn({ key: row.key }, 'ignoring an invalid stored instance setting');
        continue;
      }
      (settings as unknown as Record<SettingName, unknown>)[name] = parsed.data;
    }
    return settings;
  }

  /** Validates and stores the given settings (all or nothing); unknown names are refused. */
  async updateSettings(patch: Partial<InstanceSettings>): Promise<InstanceSettings> {
    const parsed = patchSchema.safeParse(patch);
    if (!parsed.success) throw invalid('Validation failed', parsed.error);
    const entries = Object.entries(parsed.data).filter(([, value]) => value !== undefined) as Array<
      [SettingName, unknown]
    >;
    if (entries.length > 0) {
      await this.deps.sequelize.transaction(async (transaction) => {
        for (const [name, value] of entries) {
          await this.settingModel.upsert({ key: SETTINGS[name].key, value }, { transaction });
        }
      });
      await this.changed();
    }
    return this.settings();
  }

  /** Rules in display order. */
  async rules(): Promise<InstanceRule[]> {
    const rows = await this.ruleModel.findAll({
      order: [
        ['priority', 'ASC'],
        ['id', 'ASC'],
      ],
    });
    return rows.map((row) => ({ id: String(row.id), text: row.text, hint: row.hint }));
  }

  async addRule(input: { text: string; hint?: string; priority?: number }): Promise<InstanceRule> {
    const parsed = ruleSchema.safeParse(input);
    if (!parsed.success) throw invalid('Validation failed', parsed.error);
    const row = await this.ruleModel.create(parsed.data);
    await this.changed();
    return { id: String(row.id), text: row.text, hint: row.hint };
  }

  async removeRule(id: string): Promise<void> {
    if (!/^\d{1,18}$/.test(id)) throw new NotFound('Record not found');
    const removed = await this.ruleModel.destroy({ where: { id } });
    if (removed === 0) throw new NotFound('Record not found');
    await this.changed();
  }

  /** The whole description, read fresh (three queries plus the contributed counters). */
  async view(): Promise<InstanceView> {
    const { config } = this.deps;
    const [settings, rules, stats] = await Promise.all([
      this.settings(),
      this.rules(),
      this.deps.stats.snapshot(),
    ]);
    return {
      ...settings,
      domain: config.http.domain,
      publicUrl: config.http.publicUrl,
      version: INSTANCE_VERSION,
      sourceUrl: config.instance.sourceUrl,
      thumbnailUrl: config.instance.thumbnailUrl ?? `${config.http.publicUrl}${PREVIEW_IMAGE_PATH}`,
      streamingUrl: config.instance.streamingUrl,
      vapidPublicKey: this.deps.vapidPublicKey ?? null,
      limits: config.limits,
      rules,
      stats,
    };
  }

  private async changed(): Promise<void> {
    for (const listener of [...this.listeners]) await listener();
  }
}

function invalid(message: string, error: z.ZodError): BadInput {
  const fields: FieldErrors = {};
  for (const issue of error.issues) {
    const field = issue.path.length > 0 ? String(issue.path[0]) : (issueKeys(issue)[0] ?? 'base');
    (fields[field] ??= []).push(issue.message);
  }
  const summary = Object.entries(fields)
    .map(([field, messages]) => `${field} ${messages.join(', ')}`)
    .join('; ');
  return new BadInput(`${message}: ${summary}`, { fields });
}

// Unknown keys in a strict object are reported on the object itself, with the keys listed.
function issueKeys(issue: z.core.$ZodIssue): string[] {
  return issue.code === 'unrecognized_keys' ? issue.keys : [];
}
