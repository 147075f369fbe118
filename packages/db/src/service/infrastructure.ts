import type { Sequelize } from 'sequelize';
import {
  createLogger,
  createMailer,
  createPgBossQueue,
  createPgPubSub,
  type BaseServiceConfig,
  type JobQueue,
  type Logger,
  type Mailer,
  type PubSub,
} from '@agora/core';
import { createSequelize } from '../sequelize.factory.js';

/** What every service builds on: all of it backed by the service's own PostgreSQL (but mail). */
export interface ServiceInfrastructure {
  logger: Logger;
  sequelize: Sequelize;
  queue: JobQueue;
  pubsub: PubSub;
  mailer: Mailer;
}

export interface OwnedInfrastructure extends ServiceInfrastructure {
  /** Adds a release step; steps run in reverse order of registration on close(). */
  onClose(release: () => Promise<void>): void;
  /** Releases what was created here (not the overrides passed in) and what was registered; once. */
  close(): Promise<void>;
}

/**
 * Builds a service's logger, Sequelize, job queue, pub/sub and mailer from its configuration.
 * `overrides` replace parts (tests, tools); whoever passes a part keeps the duty to close it.
 */
export function createInfrastructure(
  config: BaseServiceConfig,
  overrides: Partial<ServiceInfrastructure> = {},
): OwnedInfrastructure {
  const url = config.db.url;
  if (!url) {
    throw new Error(
      'config.db.url is not set: set DATABASE_URL, or start the service with startService(), which opens the embedded PostgreSQL',
    );
  }
  const releases: Array<() => Promise<void>> = [];
  const logger = overrides.logger ?? createLogger({ level: config.log.level, name: config.service });
  const own = <T>(given: T | undefined, create: () => T, release: (part: T) => Promise<void>): T => {
    if (given) return given;
    const part = create();
    releases.push(() => release(part));
    return part;
  };
  const sequelize = own(
    overrides.sequelize,
    () => createSequelize({ url, logger, poolMax: config.db.poolMax }),
    (part) => part.close(),
  );
  const queue = own(
    overrides.queue,
    () =>
      createPgBossQueue({
        connectionString: url,
        logger,
        role: config.role,
        concurrency: config.queue.concurrency,
      }),
    (part) => part.stop(),
  );
  const pubsub = own(
    overrides.pubsub,
    () => createPgPubSub({ connectionString: url, logger }),
    (part) => part.close(),
  );
  const mailer = overrides.mailer ?? createMailer(config.mail, logger);

  let closing: Promise<void> | undefined;
  return {
    logger,
    sequelize,
    queue,
    pubsub,
    mailer,
    onClose(release) {
      releases.push(release);
    },
    close() {
      closing ??= (async () => {
        for (const release of releases.reverse()) {
          try {
            await release();
          } catch (error) {
            logger.warn({ err: error }, 'error while releasing a service part');
          }
        }
      })();
      return closing;
    },
  };
}
