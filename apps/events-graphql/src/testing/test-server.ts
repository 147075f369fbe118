import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Env } from '@agora/core';
import { createTestDatabase, freePort, serviceTemplate, testServiceEnv } from '@agora/db/testing';
import { loadConfig } from '../config/config.js';
import { AppContext, type AppServices } from '../context.js';
import { migrationSets } from '../migrations/index.js';
import { createServer, type AppServer } from '../server.js';

export { graphql, type GraphQLResponse } from './graphql-client.js';

/**
 * The database every test server starts from: all migrations applied and the server booted once (the
 * job queue's schema and queues). Built once per run and migration list, cloned per server.
 */
export const eventsTemplate = serviceTemplate('events', migrationSets, async (url, dataDir) => {
  const server = createServer(
    await AppContext.fromConfig(loadConfig(testServiceEnv(url, await freePort(), dataDir))),
  );
  await server.start();
  return server;
});

export interface TestServer {
  url: string;
  ctx: AppContext;
  server: AppServer;
  /** Another server on the same database, as a second process would be. */
  sibling(env?: Env, overrides?: Partial<AppServices>): Promise<Omit<TestServer, 'sibling'>>;
  stop(): Promise<void>;
}

export async function startTestServer(
  label: string,
  env: Env = {},
  overrides: Partial<AppServices> = {},
): Promise<TestServer> {
  const db = await createTestDatabase(label, eventsTemplate);
  const dataDir = mkdtempSync(join(tmpdir(), `agora-events-${label}-`));
  const started: Array<{ server: AppServer }> = [];
  let sharedPublicUrl: string | undefined;
  const boot = async (extraEnv: Env, extra: Partial<AppServices>) => {
    // A port chosen before listening, so PUBLIC_URL (actor ids, links) names the real address.
    // Siblings are more processes of the same instance: they keep the first one's public URL.
    const port = await freePort();
    sharedPublicUrl ??= `http://127.0.0.1:${port}`;
    const config = loadConfig({
      ...testServiceEnv(db.url, port, dataDir),
      PUBLIC_URL: sharedPublicUrl,
      ...extraEnv,
    });
    const ctx = await AppContext.fromConfig(config, extra);
    const server = createServer(ctx);
    started.push({ server });
    const { url } = await server.start();
    return { url, ctx, server, stop: () => server.stop() };
  };
  const main = await boot(env, overrides);
  return {
    ...main,
    sibling: (siblingEnv: Env = {}, siblingOverrides: Partial<AppServices> = {}) =>
      boot({ ...env, ...siblingEnv }, siblingOverrides),
    async stop() {
      for (const { server } of started.reverse()) await server.stop();
      await db.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
