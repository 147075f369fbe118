import { join } from 'node:path';
import type { Logger } from '@agora/core';
import { ensureDatabase } from './database.admin.js';
import { startEmbeddedPostgres, type EmbeddedPostgresHandle } from './embedded/embedded-postgres.launcher.js';

export interface OpenDatabaseOptions {
  /** A server's database URL (DATABASE_URL); without it, the embedded cluster serves the database. */
  url?: string;
  /** The project's data folder: the embedded cluster lives in `${dataDir}/postgres`. */
  dataDir: string;
  embeddedPort: number;
  databaseName: string;
  logger?: Logger;
}

export interface OpenedDatabase {
  url: string;
  embedded: EmbeddedPostgresHandle | null;
  /** Stops the embedded cluster if this call started it; otherwise does nothing. */
  close(): Promise<void>;
}

/** Where a service's database is: the given URL, or its database on the embedded cluster (started or joined). */
export async function openDatabase(options: OpenDatabaseOptions): Promise<OpenedDatabase> {
  if (options.url) return { url: options.url, embedded: null, close: async () => undefined };
  const embedded = await startEmbeddedPostgres({
    dataDir: join(options.dataDir, 'postgres'),
    port: options.embeddedPort,
    logger: options.logger,
  });
  try {
    await ensureDatabase(embedded.adminUrl, options.databaseName);
  } catch (error) {
    await embedded.stop();
    throw error;
  }
  return { url: embedded.url(options.databaseName), embedded, close: () => embedded.stop() };
}
