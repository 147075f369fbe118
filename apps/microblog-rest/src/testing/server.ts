import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, freePort, serviceTemplate, testServiceEnv } from '@agora/db/testing';
import { loadConfig } from '../config/config.js';
import { AppContext, type AppContextOverrides } from '../context.js';
import { migrationSets } from '../migrations/index.js';
import { createServer, type AppServer } from '../server.js';

/**
 * The database every test server starts from: all migrations applied and the server booted once (the
 * job queue's schema and queues; the rows that boot wrote are removed). Built once per run and
 * migration list, cloned per server.
 */
export const microblogTemplate = serviceTemplate('microblog', migrationSets, async (url, dataDir) => {
  const server = createServer(
    await AppContext.fromConfig(loadConfig(testServiceEnv(url, await freePort(), dataDir))),
  );
  await server.start();
  return server;
});

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
    const config = loadConfig({ ...testServiceEnv(databaseUrl, port, dataDir), ...options.env });
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

/** A remote account stored as the inbox stores one (no keys, no collections): `name@domain`. */
export function storeRemoteAccount(t: Pick<TestServer, 'ctx'>, username: string, domain: string) {
  const uri = `https://${domain}/users/${username}`;
  return t.ctx.actors.upsertRemote({
    type: 'Person',
    username,
    domain,
    uri,
    url: null,
    inboxUrl: `${uri}/inbox`,
    outboxUrl: null,
    sharedInboxUrl: null,
    followersUrl: null,
    followingUrl: null,
    endpoints: {},
    publicKeyPem: null,
    keyId: null,
  } as Parameters<AppContext['actors']['upsertRemote']>[0]);
}
