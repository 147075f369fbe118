import { spawn } from 'node:child_process';
import { randomBytes, randomInt } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
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

/**
 * A free TCP port on 127.0.0.1 for a test server (e.g. so its PUBLIC_URL can name it before it
 * listens). Picked below the kernel's range for outgoing connections: between the pick and the
 * server's own listen (seconds, with migrations and workers), the many client sockets of a parallel
 * run could otherwise be handed the same port (EADDRINUSE, seen on CI).
 */
export async function freePort(): Promise<number> {
  const below = await outgoingPortsStart();
  if (below !== null && below - LISTEN_PORT_SPAN > 1024) {
    const from = below - LISTEN_PORT_SPAN;
    for (let tries = 0; tries < 50; tries += 1) {
      const port = from + randomInt(LISTEN_PORT_SPAN);
      if ((await listenOnce(port)) !== null) return port;
    }
  }
  // Elsewhere (or a crowded range): any port the OS hands out.
  const port = await listenOnce(0);
  if (port === null) throw new Error('No free TCP port on 127.0.0.1');
  return port;
}

const LISTEN_PORT_SPAN = 10_000;

/** The first port of Linux's range for outgoing connections, or null where there is none to read. */
async function outgoingPortsStart(): Promise<number | null> {
  try {
    const [low] = (await readFile('/proc/sys/net/ipv4/ip_local_port_range', 'utf8')).trim().split(/\s+/);
    const port = Number(low);
    return Number.isInteger(port) ? port : null;
  } catch {
    return null;
  }
}

/** Listens on `port` (0: any) and closes again; the port it got, or null when it was taken. */
function listenOnce(port: number): Promise<number | null> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.once('error', (error: NodeJS.ErrnoException) =>
      error.code === 'EADDRINUSE' || error.code === 'EACCES' ? resolvePort(null) : reject(error),
    );
    server.listen(port, '127.0.0.1', () => {
      const { port: got } = server.address() as { port: number };
      server.close(() => resolvePort(got));
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
