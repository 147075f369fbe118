import type { JobQueue, Logger, Mailer, PubSub } from '@agora/core';
import { createInfrastructure, type OwnedInfrastructure } from '@agora/db';
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
  private constructor(
    readonly config: EventsConfig,
    services: AppServices,
    private readonly infrastructure: OwnedInfrastructure,
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
    const infrastructure = createInfrastructure(config, overrides);
    const { logger, sequelize, pubsub } = infrastructure;
    const instanceConfig =
      overrides.instanceConfig ??
      new InstanceConfigService({
        env: config.instance,
        domain: config.http.domain,
        version: appVersion(),
        sequelize,
        model: defineAdminSettingModel(sequelize),
        pubsub,
        logger,
      });
    infrastructure.onClose(() => instanceConfig.stop());
    const services: AppServices = {
      ...infrastructure,
      instanceConfig,
      statistics:
        overrides.statistics ??
        new StatisticsService({ ttlMs: config.statistics.cacheSeconds * 1000, logger }),
      languages: overrides.languages ?? new LanguageService(),
    };
    return new AppContext(config, services, infrastructure);
  }

  /** Releases everything the context opened; safe to call more than once. */
  close(): Promise<void> {
    return this.infrastructure.close();
  }
}
