import { createLogger, type BaseServiceConfig, type Logger } from '@agora/core';
import { openDatabase } from '../open-database.js';

export interface StartableServer {
  start(): Promise<{ url: string }>;
  stop(): Promise<void>;
}

export interface RunningService {
  url: string;
  stop(): Promise<void>;
}

/**
 * Starts a service as its process does: opens its database (the embedded PostgreSQL when
 * DATABASE_URL is unset), lets `build` make the server against it, starts it. `stop()` undoes all
 * of it, once; a failed start leaves nothing running.
 */
export async function bootService<C extends BaseServiceConfig>(
  config: C,
  build: (config: C, logger: Logger) => Promise<StartableServer>,
): Promise<RunningService> {
  const logger = createLogger({ level: config.log.level, name: config.service });
  const database = await openDatabase({ ...config.db, dataDir: config.dataDir, logger });
  let server: StartableServer | undefined;
  try {
    server = await build({ ...config, db: { ...config.db, url: database.url } }, logger);
    const { url } = await server.start();
    logger.info({ url }, `${config.service} listening on ${url}`);
    const running = server;
    let stopping: Promise<void> | undefined;
    return {
      url,
      stop() {
        stopping ??= running.stop().finally(() => database.close());
        return stopping;
      },
    };
  } catch (error) {
    await server?.stop().catch(() => undefined);
    await database.close();
    throw error;
  }
}
