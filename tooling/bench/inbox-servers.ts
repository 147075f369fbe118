/**
 * Remote instances for the delivery benchmarks: `count` HTTP servers on loopback in one child process
 * (so their work is not counted in the bench process), each a shared inbox at `/inbox` that verifies
 * every POST's HTTP signature with our verifier, as a peer does (the key fetched once from its `keyId`
 * over HTTP, then cached), and counts the POSTs per activity id. The child answers commands on its
 * standard input with one JSON line each: `stats`, `reset`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { verifyRequest, type ResolvedKey } from '@agora/federation';

const HOST = '127.0.0.1';
// A peer would refuse larger bodies; the bench's activities are a few kB.
const MAX_BODY_BYTES = 1024 * 1024;

/** What the instances saw since the last reset. */
export interface InboxStats {
  /** POSTs per instance (index as in `origins`). */
  posts: number[];
  /** POSTs whose signature did not verify, with the first few reasons. */
  refused: number;
  reasons: string[];
  /** Per activity id: how many instances got it, how many POSTs in all, and when the last one arrived. */
  activities: Record<string, { instances: number; posts: number; lastAt: number }>;
}

export interface InboxServers {
  /** `http://127.0.0.1:<port>`, one per instance. */
  origins: string[];
  /** The child process that runs them all (its CPU is theirs). */
  pid: number | undefined;
  /** The shared inbox of instance `i`. */
  sharedInbox(i: number): string;
  stats(): Promise<InboxStats>;
  reset(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Starts the instances in a child process; times (`lastAt`) are `performance.timeOrigin +
 * performance.now()`, comparable with the same expression in the bench process.
 */
export async function startInboxServers(count: number): Promise<InboxServers> {
  const self = fileURLToPath(import.meta.url);
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', self, '--serve', String(count)], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const next = async (): Promise<string> => {
    const line = await lines.next();
    if (line.done) throw new Error('the bench inbox servers exited');
    return line.value;
  };
  let origins: string[];
  try {
    origins = JSON.parse(await next()) as string[];
  } catch (error) {
    child.kill();
    throw error;
  }
  // One command at a time: answers come back in order.
  let queue: Promise<unknown> = Promise.resolve();
  const ask = <T>(command: string): Promise<T> => {
    const answer = queue.then(async () => {
      child.stdin!.write(`${command}\n`);
      return JSON.parse(await next()) as T;
    });
    queue = answer.catch(() => undefined);
    return answer;
  };
  return {
    origins,
    pid: child.pid,
    sharedInbox: (i) => `${origins[i]}/inbox`,
    stats: () => ask<InboxStats>('stats'),
    reset: async () => void (await ask<unknown>('reset')),
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill();
      await exited;
    },
  };
}

/** The child: `count` servers and the command loop. */
async function serve(count: number): Promise<void> {
  let stats: InboxStats;
  const reset = (): void => {
    stats = { posts: Array.from({ length: count }, () => 0), refused: 0, reasons: [], activities: {} };
  };
  reset();
  // A peer fetches an unknown key once and keeps it; `refresh` fetches it again.
  const keys = new Map<string, Promise<ResolvedKey | null>>();
  const fetchKey = async (keyId: string): Promise<ResolvedKey | null> => {
    const response = await fetch(keyId, {
      headers: { accept: 'application/activity+json' },
      signal: AbortSignal.timeout(10_000),
    });
    if (!response.ok) return null;
    const actor = (await response.json()) as { id?: string; publicKey?: { publicKeyPem?: string } };
    const pem = actor.publicKey?.publicKeyPem;
    return pem && actor.id ? { publicKeyPem: pem, owner: actor.id } : null;
  };
  const resolveKey = (keyId: string, options: { refresh: boolean }): Promise<ResolvedKey | null> => {
    let known = keys.get(keyId);
    if (!known || options.refresh) {
      known = fetchKey(keyId).catch(() => null);
      keys.set(keyId, known);
    }
    return known;
  };

  const handle = async (instance: number, request: IncomingMessage, response: ServerResponse) => {
    if (request.method !== 'POST' || request.url !== '/inbox') {
      request.resume();
      response.writeHead(404).end();
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of request) {
      size += (chunk as Buffer).length;
      if (size > MAX_BODY_BYTES) {
        response.writeHead(413).end();
        return;
      }
      chunks.push(chunk as Buffer);
    }
    const body = Buffer.concat(chunks);
    const verified = await verifyRequest(
      { method: 'POST', url: request.url, headers: request.headers, body },
      resolveKey,
      { scheme: 'http' },
    );
    if (!verified.ok) {
      stats.refused += 1;
      if (stats.reasons.length < 5) stats.reasons.push(`${verified.reason}: ${verified.detail}`);
      response.writeHead(401).end();
      return;
    }
    let id = '(no id)';
    try {
      const parsed = (JSON.parse(body.toString('utf8')) as { id?: unknown }).id;
      if (typeof parsed === 'string') id = parsed;
    } catch {
      id = '(not JSON)';
    }
    stats.posts[instance] = (stats.posts[instance] ?? 0) + 1;
    const entry = (stats.activities[id] ??= { instances: 0, posts: 0, lastAt: 0 });
    entry.posts += 1;
    // Instances are counted once each; a second POST of the same activity to one instance shows in `posts`.
    if (!seen.has(`${instance} ${id}`)) {
      seen.add(`${instance} ${id}`);
      entry.instances += 1;
    }
    entry.lastAt = performance.timeOrigin + performance.now();
    response.writeHead(202).end();
  };
  const seen = new Set<string>();

  const origins: string[] = [];
  for (let instance = 0; instance < count; instance += 1) {
    const server = createServer((request, response) => {
      handle(instance, request, response).catch(() => response.destroy());
    });
    server.keepAliveTimeout = 60_000;
    await new Promise<void>((resolve) => server.listen(0, HOST, resolve));
    origins.push(`http://${HOST}:${(server.address() as AddressInfo).port}`);
  }
  process.stdout.write(`${JSON.stringify(origins)}\n`);
  createInterface({ input: process.stdin }).on('line', (command) => {
    if (command === 'reset') {
      reset();
      seen.clear();
      process.stdout.write('{}\n');
    } else if (command === 'stats') {
      process.stdout.write(`${JSON.stringify(stats)}\n`);
    }
  });
  // The parent going away ends the child.
  process.stdin.on('end', () => process.exit(0));
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const at = process.argv.indexOf('--serve');
  const count = Number(process.argv[at + 1]);
  if (at < 0 || !Number.isInteger(count) || count < 1)
    throw new Error('usage: inbox-servers.ts --serve <count>');
  await serve(count);
}
