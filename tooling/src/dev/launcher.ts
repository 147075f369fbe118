import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFile } from 'node:fs/promises';
import { get as httpsGet } from 'node:https';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { z } from 'zod';
import {
  ConfigError,
  baseServiceEnv,
  defaultDataDir,
  envBoolean,
  EXIT_WITH_STDIN_FLAG,
  envList,
  loadConfig,
  type BaseServiceConfig,
  type Env,
} from '@agora/core';
import { ensureDatabase, startEmbeddedPostgres, type EmbeddedPostgresHandle } from '@agora/db';
import { services, serviceEnv, sharedDatabaseProblem, type ServiceEntry } from '../services.js';

const launcherSchema = z.object({
  DATA_DIR: z.string().optional(),
  EMBEDDED_PG_PORT: baseServiceEnv({ port: 0 }).EMBEDDED_PG_PORT,
  SERVICES: envList(services.map((service) => service.name)),
  // HTTPS=1: both services over TLS with a certificate of a local CA (DATA_DIR/tls; see local-tls.ts).
  HTTPS: envBoolean(false),
});

export interface LaunchedService {
  entry: ServiceEntry;
  config: BaseServiceConfig;
  child: ChildProcess;
}

export interface Launcher {
  services: LaunchedService[];
  /** Resolves with the exit code once everything has stopped (after stop() or a crash). */
  finished: Promise<number>;
  stop(): Promise<void>;
}

export type Print = (line: string) => void;

/** GET url: true on a 2xx. Over https, only a certificate `ca` signed is accepted. */
async function healthy(url: string, ca: Buffer | null): Promise<boolean> {
  if (ca === null) {
    const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
    return response.ok;
  }
  return new Promise((resolve, reject) => {
    const request = httpsGet(url, { ca, timeout: 2000 }, (response) => {
      response.resume();
      resolve((response.statusCode ?? 500) < 300);
    });
    request.on('timeout', () => request.destroy(new Error('timed out')));
    request.on('error', reject);
  });
}

async function waitForHealth(
  url: string,
  child: ChildProcess,
  ca: Buffer | null,
  timeoutMs = 60_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`exited with code ${child.exitCode} before it was healthy`);
    try {
      if (await healthy(`${url}/health`, ca)) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`not healthy after ${timeoutMs / 1000} s`);
}

const LEVELS: Record<number, string> = {
  10: 'trace',
  20: 'debug',
  30: 'info',
  40: 'warn',
  50: 'error',
  60: 'fatal',
};

/** A service's JSON log line as a person reads it in a terminal: time, level, message, the rest. */
export function readableLogLine(line: string): string {
  if (!line.startsWith('{')) return line;
  try {
    const {
      level,
      time,
      msg,
      service: _service,
      name: _name,
      pid: _pid,
      hostname: _host,
      ...rest
    } = JSON.parse(line) as Record<string, unknown>;
    const clock = typeof time === 'number' ? new Date(time).toISOString().slice(11, 19) : '';
    const extra = Object.keys(rest).length > 0 ? ` ${JSON.stringify(rest)}` : '';
    return `${clock} ${(LEVELS[level as number] ?? String(level)).padEnd(5)} ${String(msg ?? '')}${extra}`;
  } catch {
    return line;
  }
}

function prefixOutput(child: ChildProcess, name: string, print: Print): void {
  for (const stream of [child.stdout, child.stderr]) {
    if (!stream) continue;
    createInterface({ input: stream }).on('line', (line) => print(`[${name}] ${readableLogLine(line)}`));
  }
}

/** Local address to probe a service on, whatever interface it binds. */
function probeUrl(config: BaseServiceConfig): string {
  const host = ['0.0.0.0', '::', ''].includes(config.http.host) ? '127.0.0.1' : config.http.host;
  const scheme = config.http.tls ? 'https' : 'http';
  return `${scheme}://${host.includes(':') ? `[${host}]` : host}:${config.http.port}`;
}

/**
 * Starts the chosen services as their own processes, with one embedded PostgreSQL cluster (one
 * database per service) for those that have no DATABASE_URL, and waits until each is healthy.
 */
export async function launch(env: Env, print: Print): Promise<Launcher> {
  const settings = loadConfig(launcherSchema, env);
  const dataDir = settings.DATA_DIR ?? defaultDataDir();
  // HTTPS: each service serves the local CA's certificate, names itself https://localhost:PORT
  // (unless PUBLIC_URL says otherwise) and trusts that CA in its outgoing requests (Node reads
  // NODE_EXTRA_CA_CERTS at start), so the services federate with each other over https too.
  let tlsEnv: Env = {};
  let ca: Buffer | null = null;
  if (settings.HTTPS) {
    const { ensureLocalTls } = await import('./local-tls.js');
    const tls = await ensureLocalTls(join(dataDir, 'tls'));
    ca = await readFile(tls.caFile);
    print(
      `HTTPS        certificate of the local CA ${tls.caFile}${tls.created.ca ? ' (new: trust it once, see README)' : ''}`,
    );
    tlsEnv = { TLS_CERT_FILE: tls.certFile, TLS_KEY_FILE: tls.keyFile, NODE_EXTRA_CA_CERTS: tls.caFile };
  }
  const entries = settings.SERVICES.map((name) => {
    const entry = services.find((service) => service.name === name);
    if (!entry) throw new Error(`SERVICES: unknown service "${name}"`);
    return entry;
  });
  const shared = sharedDatabaseProblem(entries, env);
  if (shared) throw new ConfigError([`DATABASE_URL: ${shared}`]);
  const chosen = entries.map((entry) => {
    const childEnv: Env = { ...serviceEnv(entry, env), ...tlsEnv, DATA_DIR: dataDir };
    // Validate every service's configuration before starting anything.
    return { entry, childEnv, config: entry.loadConfig(childEnv) };
  });
  // The services started together federate with each other over loopback: each may fetch from and
  // deliver to the others' exact host:port, and nothing else private (unless configured otherwise).
  for (const item of chosen) {
    if (item.childEnv.FEDERATION_ALLOW_PRIVATE_HOSTS !== undefined) continue;
    const siblings = chosen.filter((other) => other !== item).map((other) => other.config.http.domain);
    if (siblings.length > 0) item.childEnv.FEDERATION_ALLOW_PRIVATE_HOSTS = siblings.join(',');
  }

  let postgres: EmbeddedPostgresHandle | null = null;
  if (chosen.some(({ config }) => !config.db.url)) {
    postgres = await startEmbeddedPostgres({
      dataDir: join(dataDir, 'postgres'),
      port: settings.EMBEDDED_PG_PORT,
    });
    print(`PostgreSQL   embedded, port ${postgres.port}, data in ${join(dataDir, 'postgres')}`);
    for (const item of chosen) {
      if (item.config.db.url) continue;
      await ensureDatabase(postgres.adminUrl, item.config.db.databaseName);
      item.childEnv.DATABASE_URL = postgres.url(item.config.db.databaseName);
    }
  }

  let stopping = false;
  let resolveFinished: (code: number) => void = () => {};
  const finished = new Promise<number>((resolve) => (resolveFinished = resolve));

  const launched: LaunchedService[] = chosen.map(({ entry, childEnv, config }) => {
    // stdin stays a pipe we never write to: if this launcher dies, even by SIGKILL, the service sees
    // it close and stops (runMain's EXIT_WITH_STDIN_FLAG), so no orphan keeps the ports.
    const child = spawn(process.execPath, [entry.mainPath, EXIT_WITH_STDIN_FLAG], {
      env: childEnv as NodeJS.ProcessEnv,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    prefixOutput(child, entry.name, print);
    return { entry, config, child };
  });

  const stopAll = async (code: number) => {
    if (stopping) return;
    stopping = true;
    await Promise.all(
      launched.map(async ({ child }) => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        const exited = once(child, 'exit');
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(timer);
      }),
    );
    if (postgres) await postgres.stop();
    resolveFinished(code);
  };

  for (const { entry, child } of launched) {
    child.once('exit', (code, signal) => {
      if (stopping) return;
      print(`${entry.label} stopped unexpectedly (${signal ?? `exit ${code}`}); stopping the others`);
      void stopAll(1);
    });
  }

  try {
    await Promise.all(
      launched.map(async ({ entry, config, child }) => {
        try {
          await waitForHealth(probeUrl(config), child, ca);
        } catch (error) {
          throw new Error(`${entry.label}: ${(error as Error).message}`);
        }
      }),
    );
  } catch (error) {
    await stopAll(1);
    throw error;
  }

  return { services: launched, finished, stop: () => stopAll(0) };
}
