import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { platform, tmpdir } from 'node:os';
import { join } from 'node:path';
import { testSettings } from '@agora/core';
import { createDatabase, databaseUrl, dropDatabase } from '../database.admin.js';
import { PortInUseError, startCluster, type ClusterHandle } from '../embedded/embedded-postgres.launcher.js';

import { cloneTemplate, type TemplateSpec } from './template-database.js';

export { drainDueJobs, waitingJobKeys } from './queued-jobs.js';
export { templateName, type TemplateSpec } from './template-database.js';
export { serviceTemplate, testServiceEnv } from './service-template.js';

export interface TestDatabase {
  url: string;
  name: string;
  /** Drops the database, ending sessions still connected to it. */
  drop(): Promise<void>;
}

/** This process's throwaway cluster, used when TEST_DATABASE_URL is not set. */
let testCluster: Promise<ClusterHandle> | undefined;

/** The server test databases are created on, as a URL to its maintenance database. */
export async function testServerUrl(): Promise<string> {
  const { databaseUrl: serverUrl } = testSettings();
  if (serverUrl) return serverUrl;
  testCluster ??= startTestCluster();
  try {
    return (await testCluster).adminUrl;
  } catch (error) {
    testCluster = undefined;
    throw error;
  }
}

/** A TCP port on 127.0.0.1 the OS just handed out (e.g. so a test server's PUBLIC_URL can name it). */
export async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolvePort(port));
    });
  });
}

async function startTestCluster(): Promise<ClusterHandle> {
  const root = await mkdtemp(join(tmpdir(), 'agora-test-pg-'));
  for (let attempt = 1; ; attempt++) {
    try {
      const cluster = await startCluster({
        dataDir: join(root, 'data'),
        port: await freePort(),
        ephemeral: true,
      });
      removeWhenGone(root, cluster.pid);
      return cluster;
    } catch (error) {
      // Another process may take the free port between our check and PostgreSQL's bind.
      if (error instanceof PortInUseError && attempt < 5) continue;
      await rm(root, { recursive: true, force: true }).catch(() => undefined);
      throw error;
    }
  }
}

/**
 * A detached watchdog: once this process is gone (even by SIGKILL), it stops the test cluster and
 * deletes its folder. The exit hook of the launcher already asks the cluster to stop on a normal exit.
 */
function removeWhenGone(root: string, postgresPid: number): void {
  if (platform() === 'win32') return;
  const script = [
    'while kill -0 "$1" 2>/dev/null; do sleep 1; done',
    'kill -QUIT "$2" 2>/dev/null',
    // Bounded: an unreaped zombie still answers kill -0.
    'i=0; while kill -0 "$2" 2>/dev/null && [ $i -lt 30 ]; do sleep 1; i=$((i+1)); done',
    'rm -rf "$3"',
  ].join('; ');
  spawn('sh', ['-c', script, 'agora-test-pg-cleanup', String(process.pid), String(postgresPid), root], {
    detached: true,
    stdio: 'ignore',
  }).unref();
}

function slug(label: string): string {
  return (
    label
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '_')
      .replace(/^_+|_+$/g, '')
      .slice(0, 30) || 'db'
  );
}

/**
 * A fresh, uniquely named database on the server named by TEST_DATABASE_URL, or on this process's own
 * embedded cluster without it: empty, or with `template` a copy of the migrated template database
 * (built once per run and migration list, see template-database.ts). Safe from parallel mocha workers.
 */
export async function createTestDatabase(label = 'db', template?: TemplateSpec): Promise<TestDatabase> {
  const serverUrl = await testServerUrl();
  const name = `agora_test_${slug(label)}_${randomBytes(5).toString('hex')}`;
  if (template) await cloneTemplate(serverUrl, name, template);
  else await createDatabase(serverUrl, name);
  return { url: databaseUrl(serverUrl, name), name, drop: () => dropDatabase(serverUrl, name) };
}

interface MochaHooks {
  before(fn: (this: { timeout(ms: number): void }) => Promise<void>): void;
  after(fn: () => Promise<void>): void;
}

/**
 * Mocha sugar: a fresh database for the enclosing `describe` (or file), created in `before` and
 * dropped in `after`; already migrated when given a `template`. Read `url` and `name` inside hooks
 * and tests, not at definition time.
 */
export function withTestDatabase(
  label?: string,
  template?: TemplateSpec,
): Readonly<Pick<TestDatabase, 'url' | 'name'>> {
  const { before, after } = globalThis as unknown as MochaHooks;
  let database: TestDatabase | undefined;
  before(async function () {
    // The first call in a process may have to create an embedded cluster.
    this.timeout(120_000);
    database = await createTestDatabase(label, template);
  });
  after(async () => {
    await database?.drop();
    database = undefined;
  });
  const current = (): TestDatabase => {
    if (!database)
      throw new Error('withTestDatabase: the database exists only between its before and after hooks');
    return database;
  };
  return {
    get url() {
      return current().url;
    },
    get name() {
      return current().name;
    },
  };
}
