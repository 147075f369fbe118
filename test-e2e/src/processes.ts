import { expect } from 'chai';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { createTestDatabase, type TemplateSpec } from '@agora/db/testing';
import * as events from '@agora/events-graphql';
import * as microblog from '@agora/microblog-rest';

export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

/** `npm start`'s launcher. */
export const LAUNCHER_SCRIPT = 'tooling/src/dev/start.ts';

/**
 * Migrated template databases of the two services (cloned per test by createTestDatabase), for tests
 * whose subject is not the migrations; a test of `migrate` uses an empty database instead.
 */
export const templates = {
  events: { family: 'e2eevents', sets: events.migrationSets },
  microblog: { family: 'e2emicroblog', sets: microblog.migrationSets },
} satisfies Record<string, TemplateSpec>;

/** Cheap password hashes for the services and the admin tool these tests start (test mode only). */
export const CHEAP_PASSWORDS = { NODE_ENV: 'test', PASSWORD_HASH_COST: 'test' } as const;

/** A port nothing listens on right now. */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  await once(server, 'close');
  if (!address || typeof address === 'string') throw new Error('no port');
  return address.port;
}

export interface RunningProcess {
  child: ChildProcess;
  output(): string;
  /** Resolves when the output contains `text`; rejects if the process exits first. */
  waitFor(text: string, timeoutMs?: number): Promise<void>;
  exited: Promise<number | null>;
}

/** Starts one of our TypeScript entry points (launcher, CLI) as a real process. */
export function runScript(script: string, args: string[], env: Record<string, string>): RunningProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
    cwd: repoRoot,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const listeners = new Set<() => void>();
  const onData = (chunk: Buffer) => {
    output += chunk.toString();
    for (const listener of listeners) listener();
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    exited,
    output: () => output,
    waitFor(text, timeoutMs = 90_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (output.includes(text)) {
            cleanup();
            resolve();
          }
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`timed out waiting for "${text}"; output so far:\n${output}`));
        }, timeoutMs);
        const onExit = () => {
          cleanup();
          reject(new Error(`exited before printing "${text}"; output:\n${output}`));
        };
        const cleanup = () => {
          clearTimeout(timer);
          listeners.delete(check);
          child.off('exit', onExit);
        };
        listeners.add(check);
        child.once('exit', onExit);
        check();
      });
    },
  };
}

export async function graphql(
  url: string,
  query: string,
): Promise<{ data?: Record<string, unknown>; errors?: unknown[] }> {
  const response = await fetch(`${url}/api`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query }),
  });
  return (await response.json()) as { data?: Record<string, unknown>; errors?: unknown[] };
}

/** Fails if anything still answers on `port`. */
export async function expectClosed(port: number): Promise<void> {
  let reached = true;
  try {
    await fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(2000) });
  } catch {
    reached = false;
  }
  expect(reached, `port ${port} still answers after stop`).to.equal(false);
}

/** Polls until nothing answers on `port` (another process is shutting down), or fails after `timeoutMs`. */
export async function waitClosed(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await fetch(`http://127.0.0.1:${port}/health`, { signal: AbortSignal.timeout(1000) });
    } catch {
      return;
    }
    if (Date.now() > deadline)
      throw new Error(`port ${port} still answers ${timeoutMs} ms after the launcher died`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** `npm start`'s launcher on two fresh test databases and free ports (the caller drops the databases). */
export async function launchOnTestDatabases(label: string) {
  const eventsDb = await createTestDatabase(`${label}_events`, templates.events);
  const microblogDb = await createTestDatabase(`${label}_microblog`, templates.microblog);
  const [eventsPort, microblogPort] = [await freePort(), await freePort()];
  const launcher = runScript(LAUNCHER_SCRIPT, [], {
    EVENTS_DATABASE_URL: eventsDb.url,
    MICROBLOG_DATABASE_URL: microblogDb.url,
    EVENTS_PORT: String(eventsPort),
    MICROBLOG_PORT: String(microblogPort),
    LOG_LEVEL: 'warn',
  });
  return { launcher, eventsPort, microblogPort, eventsDb, microblogDb };
}
