import {
  createLogger,
  createMailer,
  createPgBossQueue,
  createPgPubSub,
  type JobQueue,
  type Logger,
  type Mailer,
  type PubSub,
} from '@agora/core';
import { createSequelize } from '@agora/db';
import type { Sequelize } from 'sequelize';
import type { EventsConfig } from './config/config.js';
import { defineAdminSettingModel } from './modules/config/admin-setting.model.js';
import { InstanceConfigService } from './modules/config/config.service.js';
import { LanguageService } from './modules/languages/language.service.js';
import { StatisticsService } from './modules/statistics/statistics.service.js';
import { appVersion } from './version.js';

/** Everything the service's code may use, built once per process (or per test server). */
export interface AppServices {
  logger: Logger;
  sequelize: Sequelize;
  queue: JobQueue;
  pubsub: PubSub;
  mailer: Mailer;
  instanceConfig: InstanceConfigService;
  statistics: StatisticsService;
  languages: LanguageService;
}

/** The composition root: the one place where the service's parts are built and wired. */
export class AppContext implements AppServices {
  readonly logger: Logger;
  readonly sequelize: Sequelize;
  readonly queue: JobQueue;
  readonly pubsub: PubSub;
  readonly mailer: Mailer;
  readonly instanceConfig: InstanceConfigService;
  readonly statistics: StatisticsService;
  readonly languages: LanguageService;
  private closing: Promise<void> | null = null;

  private constructor(
    readonly config: EventsConfig,
    services: AppServices,
  ) {
    this.logger = services.logger;
    this.sequelize = services.sequelize;
    this.queue = services.queue;
    this.pubsub = services.pubsub;
    this.mailer = services.mailer;
    this.instanceConfig = services.instanceConfig;
    this.statistics = services.statistics;
    this.languages = services.languages;
  }

  /** Builds the context; `overrides` replace parts (tests, tools). Needs `config.db.url` (see openDatabase). */
  static async fromConfig(config: EventsConfig, overrides: Partial<AppServices> = {}): Promise<AppContext> {
    const url = config.db.url;
    if (!url) {
      throw new Error(
        'config.db.url is not set: set DATABASE_URL, or open the database first (startService does it with openDatabase from @agora/db)',
      );
    }
    const logger = overrides.logger ?? createLogger({ level: config.log.level, name: config.service });
    const sequelize = overrides.sequelize ?? createSequelize({ url, logger, poolMax: config.db.poolMax });
    const pubsub = overrides.pubsub ?? createPgPubSub({ connectionString: url, logger });
    const services: AppServices = {
      logger,
      sequelize,
      pubsub,
      queue:
        overrides.queue ??
        createPgBossQueue({
          connectionString: url,
          logger,
          role: config.role,
          concurrency: config.queue.concurrency,
        }),
      mailer: overrides.mailer ?? createMailer(config.mail, logger),
      instanceConfig:
        overrides.instanceConfig ??
        new InstanceConfigService({
          env: config.instance,
          domain: config.http.domain,
          version: appVersion(),
          sequelize,
          model: defineAdminSettingModel(sequelize),
          pubsub,
          logger,
        }),
      statistics:
        overrides.statistics ?? new StatisticsService({ ttlMs: config.statistics.cacheSeconds * 1000 }),
      languages: overrides.languages ?? new LanguageService(),
    };
    return new AppContext(config, services);
  }

  /** Releases everything the context holds; safe to call more than once. */
  close(): Promise<void> {
    this.closing ??= (async () => {
      await this.instanceConfig.stop();
      await this.queue.stop();
      await this.pubsub.close();
      await this.sequelize.close();
    })();
    return this.closing;
  }
}
