import { createLogger } from '@agora/core';
import { openDatabase } from '@agora/db';
import type { MicroblogConfig } from './config/config.js';
import { AppContext } from './context.js';
import { createServer } from './server.js';

/** Opens the database (embedded PostgreSQL when DATABASE_URL is unset), then starts the service. */
export async function startService(config: MicroblogConfig): Promise<{ url: string; stop(): Promise<void> }> {
  const logger = createLogger({ level: config.log.level, name: config.service });
  const database = await openDatabase({
    url: config.db.url,
    dataDir: config.dataDir,
    embeddedPort: config.db.embeddedPort,
    databaseName: config.db.databaseName,
    logger,
  });
  let server: ReturnType<typeof createServer> | undefined;
  try {
    const ctx = await AppContext.fromConfig(
      { ...config, db: { ...config.db, url: database.url } },
      { logger },
    );
    server = createServer(ctx);
    const { url } = await server.start();
    logger.info({ url }, `${config.service} listening on ${url}`);
    let stopping: Promise<void> | undefined;
    const running = server;
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
