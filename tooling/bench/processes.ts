import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

/** The repository's root (services run from there) and the loopback host every bench process uses. */
export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const BENCH_HOST = '127.0.0.1';

/** How to start one server under test as its own process. */
export interface LaunchSpec {
  name: string;
  command: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  port: number;
  host: string;
}

export interface RunningServer {
  readonly name: string;
  readonly url: string;
  readonly pid: number | undefined;
  /** The last lines the process wrote (stdout and stderr), for failure reports. */
  output(): string;
  stop(): Promise<void>;
}

const OUTPUT_LIMIT = 16_384;
const STOP_GRACE_MS = 10_000;
const live = new Set<ChildProcess>();

/** A port the OS reports free right now (the child binds it a moment later). */
export async function freePort(host = '127.0.0.1'): Promise<number> {
  const server = createServer();
  server.listen(0, host);
  await once(server, 'listening');
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('could not get a free port');
  return address.port;
}

function exited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (exited(child)) return;
  const done = once(child, 'exit');
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
  try {
    await done;
  } finally {
    clearTimeout(timer);
    live.delete(child);
  }
}

/** Starts the process and resolves once `GET /health` answers 200. */
export async function launchServer(spec: LaunchSpec, readyTimeoutMs = 60_000): Promise<RunningServer> {
  // Own process group: a terminal Ctrl-C reaches only the bench, which then stops children in order.
  const child = spawn(spec.command, spec.args, {
    cwd: spec.cwd,
    env: spec.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  live.add(child);
  let output = '';
  const collect = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-OUTPUT_LIMIT);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  let spawnError: Error | undefined;
  child.on('error', (error) => {
    spawnError = error;
  });
  child.on('exit', () => live.delete(child));

  const url = `http://${spec.host}:${spec.port}`;
  const server: RunningServer = {
    name: spec.name,
    url,
    pid: child.pid,
    output: () => output.trim(),
    stop: () => stopChild(child),
  };

  const deadline = Date.now() + readyTimeoutMs;
  let lastProblem = 'no answer yet';
  while (Date.now() < deadline) {
    if (spawnError) throw new Error(`${spec.name} could not start: ${spawnError.message}`);
    if (exited(child)) {
      throw new Error(
        `${spec.name} exited (code ${child.exitCode ?? child.signalCode}) before it was ready:\n${server.output()}`,
      );
    }
    try {
      const response = await fetch(`${url}/health`, { signal: AbortSignal.timeout(2000) });
      const body = await response.text();
      if (response.status === 200) return server;
      lastProblem = `GET /health → ${response.status} ${body.slice(0, 200)}`;
    } catch (error) {
      lastProblem = (error as Error).message;
    }
    await delay(100);
  }
  await server.stop();
  throw new Error(`${spec.name} not ready after ${readyTimeoutMs} ms (${lastProblem}):\n${server.output()}`);
}

/** Stops every child still running (normal cleanup and Ctrl-C). */
export async function stopAllServers(): Promise<void> {
  await Promise.allSettled([...live].map((child) => stopChild(child)));
}

/** Last resort on process exit: no awaiting possible, so kill outright. */
export function killAllServersNow(): void {
  for (const child of live) {
    if (!exited(child)) child.kill('SIGKILL');
  }
  live.clear();
}

/** What the runner gives each benchmark that starts its own server (fan-out, uploads, delivery…). */
export interface BenchEnvironment {
  /** A fresh database URL per label. */
  createDatabase(label: string): Promise<string>;
  /** A folder for the servers' files. */
  dataDir: string;
  /** The environment of a service process, with `extra` added. */
  serverEnv(extra: Record<string, string>): Record<string, string>;
  print(line: string): void;
  signal?: AbortSignal;
}

/**
 * How a bench of its own starts a service's production build (`entry`, relative to the repository):
 * on `port` of the loopback, with its database and data folder, the loopback exempt from rate limits,
 * and the bench's own `env` on top.
 */
export function serviceSpec(
  options: Pick<BenchEnvironment, 'serverEnv'>,
  service: {
    name: string;
    entry: string;
    port: number;
    databaseUrl: string;
    dataDir: string;
    nodeArgs?: string[];
    env?: Record<string, string>;
  },
): LaunchSpec {
  return {
    name: service.name,
    command: process.execPath,
    args: [...(service.nodeArgs ?? []), join(REPO_ROOT, service.entry)],
    cwd: REPO_ROOT,
    host: BENCH_HOST,
    port: service.port,
    env: options.serverEnv({
      PORT: String(service.port),
      DATABASE_URL: service.databaseUrl,
      DATA_DIR: service.dataDir,
      RATE_LIMIT_SAFELIST: BENCH_HOST,
      ...service.env,
    }),
  };
}

/** How such a benchmark ended: `errors` when requests failed, `failed` when it could not measure. */
export interface BenchOutcome {
  outcome: 'ok' | 'errors' | 'failed';
  problems: string[];
}
