import { randomUUID } from 'node:crypto';
import type { Sequelize } from 'sequelize';
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
import type { MicroblogConfig } from './config/config.js';
import { InstanceDocuments } from './modules/instance/instance-documents.js';
import { InstanceStatsRegistry } from './modules/instance/instance-stats.js';
import { InstanceService } from './modules/instance/instance.service.js';

/** Everything a request handler or job may use, built once per process by `AppContext.fromConfig`. */
export interface AppContextParts {
  config: MicroblogConfig;
  logger: Logger;
  sequelize: Sequelize;
  queue: JobQueue;
  pubsub: PubSub;
  mailer: Mailer;
  /** Where modules contribute the usage counters the instance documents publish. */
  stats: InstanceStatsRegistry;
  instance: InstanceService;
  instanceDocuments: InstanceDocuments;
}

export type AppContextOverrides = Partial<Omit<AppContextParts, 'config'>>;

/** Other processes of this service re-render their instance documents when this channel speaks. */
export const INSTANCE_CHANGED_CHANNEL = 'microblog:instance-changed';

/** The composition root of the microblog service. */
export class AppContext implements AppContextParts {
  readonly config: MicroblogConfig;
  readonly logger: Logger;
  readonly sequelize: Sequelize;
  readonly queue: JobQueue;
  readonly pubsub: PubSub;
  readonly mailer: Mailer;
  readonly stats: InstanceStatsRegistry;
  readonly instance: InstanceService;
  readonly instanceDocuments: InstanceDocuments;
  private closing: Promise<void> | undefined;

  private constructor(
    parts: AppContextParts,
    /** Releases what this context created (not what the caller passed in), last created first. */
    private readonly closers: Array<() => Promise<void>>,
  ) {
    this.config = parts.config;
    this.logger = parts.logger;
    this.sequelize = parts.sequelize;
    this.queue = parts.queue;
    this.pubsub = parts.pubsub;
    this.mailer = parts.mailer;
    this.stats = parts.stats;
    this.instance = parts.instance;
    this.instanceDocuments = parts.instanceDocuments;
  }

  static async fromConfig(config: MicroblogConfig, overrides: AppContextOverrides = {}): Promise<AppContext> {
    const url = config.db.url;
    if (url === undefined) {
      throw new Error(
        'config.db.url is not set: start the service through startService() (which opens the embedded PostgreSQL) or set DATABASE_URL',
      );
    }
    const closers: Array<() => Promise<void>> = [];
    const logger = overrides.logger ?? createLogger({ level: config.log.level, name: config.service });
    try {
      let sequelize = overrides.sequelize;
      if (!sequelize) {
        const created = createSequelize({ url, logger, poolMax: config.db.poolMax });
        closers.push(() => created.close());
        sequelize = created;
      }
      let queue = overrides.queue;
      if (!queue) {
        const created = createPgBossQueue({
          connectionString: url,
          logger,
          role: config.role,
          concurrency: config.queue.concurrency,
        });
        closers.push(() => created.stop());
        queue = created;
      }
      let pubsub = overrides.pubsub;
      if (!pubsub) {
        const created = createPgPubSub({ connectionString: url, logger });
        closers.push(() => created.close());
        pubsub = created;
      }
      const mailer = overrides.mailer ?? createMailer(config.mail, logger);
      const stats = overrides.stats ?? new InstanceStatsRegistry(logger);
      const instance = overrides.instance ?? new InstanceService({ config, sequelize, stats, logger });
      const instanceDocuments =
        overrides.instanceDocuments ??
        new InstanceDocuments(instance, { ttlMs: config.instance.statsTtlSeconds * 1000, logger });

      // A change here re-renders before the change call returns; other processes hear of it by pub/sub.
      const origin = randomUUID();
      const bus = pubsub;
      instance.onChange(async () => {
        await instanceDocuments.invalidate();
        await bus.publish(INSTANCE_CHANGED_CHANNEL, { origin }).catch((error: unknown) => {
          logger.warn({ err: error }, 'could not tell other processes about an instance change');
        });
      });
      const unsubscribe = await pubsub.subscribe(INSTANCE_CHANGED_CHANNEL, (payload) => {
        if ((payload as { origin?: unknown } | null)?.origin === origin) return;
        instanceDocuments.invalidate().catch((error: unknown) => {
          logger.error({ err: error }, 're-rendering the instance documents failed');
        });
      });
      closers.push(unsubscribe);

      return new AppContext(
        { config, logger, sequelize, queue, pubsub, mailer, stats, instance, instanceDocuments },
        closers,
      );
    } catch (error) {
      await closeAll(closers, logger);
      throw error;
    }
  }

  /** Releases connections and timers this context opened; safe to call more than once. */
  close(): Promise<void> {
    this.closing ??= closeAll(this.closers, this.logger);
    return this.closing;
  }
}

async function closeAll(closers: Array<() => Promise<void>>, logger: Logger): Promise<void> {
  for (const close of [...closers].reverse()) {
    try {
      await close();
    } catch (error) {
      logger.warn({ err: error }, 'error while closing the context');
    }
  }
}
