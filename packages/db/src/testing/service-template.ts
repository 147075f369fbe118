import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { emptyJobQueue, jobQueueVersion } from '@agora/core/testing';
import type { MigrationSet } from '../migrations/migration.runner.js';
import type { TemplateSpec } from './template-database.js';

/** What a service under test is configured with: test mode, loopback, cheap password hashes. */
export function testServiceEnv(databaseUrl: string, port: number, dataDir: string): Record<string, string> {
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
 * The template of a service's test databases: every migration of `sets`, then one boot of the
 * service (`boot` starts it on the template; its `stop` is awaited), so the job queue's schema and
 * queues exist too. The jobs the boot queued are emptied, and the rows it wrote removed.
 */
export function serviceTemplate(
  family: string,
  sets: () => MigrationSet[],
  boot: (databaseUrl: string, dataDir: string) => Promise<{ stop(): Promise<void> }>,
): TemplateSpec {
  return {
    family,
    sets,
    prepareKey: jobQueueVersion(),
    async prepare(url) {
      const dataDir = await mkdtemp(join(tmpdir(), `agora-${family}-template-`));
      try {
        const running = await boot(url, dataDir);
        await running.stop();
        await emptyJobQueue(url);
      } finally {
        await rm(dataDir, { recursive: true, force: true });
      }
    },
  };
}
