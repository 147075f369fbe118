import { openDatabase } from '@agora/db';
import { createLogger } from '@agora/core';
import type { EventsConfig } from './config/config.js';
import { AppContext } from './context.js';
import { createServer } from './server.js';

/**
 * Starts the service as a process does: the database (embedded PostgreSQL when DATABASE_URL is unset),
 * the context, the server. `stop()` undoes all of it.
 */
export async function startService(config: EventsConfig): Promise<{ url: string; stop(): Promise<void> }> {
  const logger = createLogger({ level: config.log.level, name: config.service });
  const database = await openDatabase({
    url: config.db.url,
    dataDir: config.dataDir,
    embeddedPort: config.db.embeddedPort,
    databaseName: config.db.databaseName,
    logger,
  });
  try {
    const ctx = await AppContext.fromConfig(
      { ...config, db: { ...config.db, url: database.url } },
      { logger },
    );
    const server = createServer(ctx);
    let url: string;
    try {
      ({ url } = await server.start());
    } catch (error) {
      await server.stop();
      throw error;
    }
    logger.info(`${config.service} listening on ${url}`);
    return {
      url,
      async stop() {
        await server.stop();
        await database.close();
      },
    };
  } catch (error) {
    await database.close();
    throw error;
  }
}
