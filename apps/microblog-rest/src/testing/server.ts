import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { emptyJobQueue, jobQueueVersion } from '@agora/core/testing';
import { createTestDatabase, freePort, type TemplateSpec } from '@agora/db/testing';
import { loadConfig } from '../config/config.js';
import { AppContext, type AppContextOverrides } from '../context.js';
import { migrationSets } from '../migrations/index.js';
import { createServer, type AppServer } from '../server.js';

/** What a test server's configuration starts from: test mode, loopback, cheap password hashes. */
export function testEnv(databaseUrl: string, port: number, dataDir: string): Record<string, string> {
  return {
    NODE_ENV: 'test',
    DATABASE_URL: databaseUrl,
    HOST: '127.0.0.1',
    PORT: String(port),
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    DATA_DIR: dataDir,
    PASSWORD_HASH_COST: 'test',
  };
}

/**
 * The database every test server starts from: all migrations applied and booted once, so the job
 * queue's schema and queues exist too (rows the boot wrote are removed). Built once per run and
 * migration list, cloned per server.
 */
export const microblogTemplate: TemplateSpec = {
  family: 'microblog',
  sets: migrationSets,
  prepareKey: jobQueueVersion(),
  async prepare(url) {
    const dataDir = await mkdtemp(join(tmpdir(), 'agora-microblog-template-'));
    try {
      const ctx = await AppContext.fromConfig(loadConfig(testEnv(url, await freePort(), dataDir)));
      const server = createServer(ctx);
      await server.start();
      await server.stop();
      await emptyJobQueue(url);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  },
};

/** A database of its own for a test that starts servers itself (`databaseUrl`); migrated, like theirs. */
export function createMicroblogTestDatabase(label: string) {
  return createTestDatabase(label, microblogTemplate);
}

export interface TestServer {
  url: string;
  ctx: AppContext;
  server: AppServer;
  /** Drops the database while the server still runs (to see it fail). */
  dropDatabase(): Promise<void>;
  stop(): Promise<void>;
}

export interface TestServerOptions {
  /** Extra environment variables (on top of the test defaults). */
  env?: Record<string, string>;
  overrides?: AppContextOverrides;
  /** Join this database (another test server's) instead of creating one; it is not dropped on stop. */
  databaseUrl?: string;
}

/** The real server, in-process on a free port, against a fresh database of its own. */
export async function startTestServer(label: string, options: TestServerOptions = {}): Promise<TestServer> {
  const db = options.databaseUrl === undefined ? await createMicroblogTestDatabase(label) : undefined;
  const databaseUrl = db?.url ?? options.databaseUrl ?? '';
  const dataDir = await mkdtemp(join(tmpdir(), `agora-microblog-${label}-`));
  let dropped = false;
  const dropDatabase = async () => {
    if (dropped || !db) return;
    dropped = true;
    await db.drop();
  };
  try {
    const port = await freePort();
    const config = loadConfig({ ...testEnv(databaseUrl, port, dataDir), ...options.env });
    const ctx = await AppContext.fromConfig(config, options.overrides);
    const server = createServer(ctx);
    const { url } = await server.start();
    return {
      url,
      ctx,
      server,
      dropDatabase,
      async stop() {
        await server.stop();
        await dropDatabase();
        await rm(dataDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await dropDatabase();
    await rm(dataDir, { recursive: true, force: true });
    throw error;
  }
}
