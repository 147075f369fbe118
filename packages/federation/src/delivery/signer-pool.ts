import type { KeyObject } from 'node:crypto';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Logger } from '@agora/core';
import { signRequest } from '../signatures/index.js';
import type { SignReply, SignTask } from './signer.protocol.js';

// Threads that die before their first answer this many times in a row mean threads cannot start here.
const MAX_FAILED_STARTS = 3;

/**
 * One signing thread per core, at most 4. The event loop's share of a delivery (queue, POST, database)
 * is small beside RSA signing, so it needs no core of its own: on 2 cores, 2 threads sign ~0.95 of
 * two single-thread ceilings' worth where 1 thread reached ~0.77 of one (`pnpm bench --only delivery`).
 */
export function defaultSignerThreads(): number {
  return Math.min(4, Math.max(1, availableParallelism()));
}

export interface SignerPoolOptions {
  /** Threads to sign on; 0 signs on the calling thread. */
  threads: number;
  logger: Logger;
  /** Starts one signing thread (tests start threads that die). */
  spawn?: () => Worker;
}

interface Waiting {
  task: SignTask;
  resolve: (headers: Record<string, string>) => void;
  reject: (error: Error) => void;
  /** A request whose thread died goes to another thread once; a second death rejects it. */
  orphaned: boolean;
}

interface Lane {
  worker: Worker;
  waiting: Map<number, Waiting>;
  answered: boolean;
  /** Settles once the thread has loaded, or has died trying. */
  loaded: Promise<void>;
  markLoaded: () => void;
}

/**
 * Signs delivery POSTs on a few worker threads, so one worker process can sign past one core's RSA
 * ceiling while its event loop keeps posting. Threads start on first use, hold the process open only
 * while they have work, and are replaced when they die; their unanswered requests move to another.
 */
export class SignerPool {
  private readonly lanes: Array<Lane | null>;
  private readonly logger: Logger;
  private readonly spawn: () => Worker;
  private nextId = 1;
  private failedStarts = 0;
  private inline: boolean;
  private closed = false;

  constructor(options: SignerPoolOptions) {
    const threads = Math.max(0, Math.floor(options.threads));
    this.lanes = Array.from({ length: threads }, () => null);
    this.inline = threads === 0;
    this.logger = options.logger;
    this.spawn = options.spawn ?? spawnSignerThread;
  }

  /** Threads running now (started lazily, so 0 before the first signature). */
  get running(): number {
    return this.lanes.filter((lane) => lane !== null).length;
  }

  /** Every header of a signed POST (`host`, `date`, `digest`, `signature` and the given ones). */
  async signPost(
    url: string,
    headers: Record<string, string>,
    body: string,
    key: { keyId: string; privateKey: KeyObject },
  ): Promise<Record<string, string>> {
    if (this.closed) throw new Error('The signer pool is closed');
    if (this.inline) return signRequest({ method: 'POST', url, headers, body }, key);
    return new Promise((resolve, reject) => {
      const task: SignTask = {
        id: this.nextId++,
        url,
        key: { keyId: key.keyId, privateKey: key.privateKey },
        headers,
        body,
      };
      this.dispatch({ task, resolve, reject, orphaned: false });
    });
  }

  /** Starts every thread now and waits until each has loaded (or died), so the first POSTs pay no start-up. */
  async warm(): Promise<void> {
    if (this.closed || this.inline) return;
    const lanes = this.lanes.map((lane, slot) => lane ?? this.start(slot));
    await Promise.all(lanes.map((lane) => lane?.loaded));
  }

  /** Stops every thread; signatures still waiting are rejected. */
  async close(): Promise<void> {
    this.closed = true;
    const lanes = this.lanes.filter((lane): lane is Lane => lane !== null);
    this.lanes.fill(null);
    await Promise.all(lanes.map((lane) => lane.worker.terminate()));
  }

  private dispatch(waiting: Waiting): void {
    const lane = this.inline ? null : this.leastBusyLane();
    if (!lane) {
      const { url, headers, body, key } = waiting.task;
      try {
        waiting.resolve(signRequest({ method: 'POST', url, headers, body }, key));
      } catch (error) {
        waiting.reject(error instanceof Error ? error : new Error('Signing failed'));
      }
      return;
    }
    // A thread with work holds the process open; an idle one does not (shutdown needs no close()).
    if (lane.waiting.size === 0) lane.worker.ref();
    lane.waiting.set(waiting.task.id, waiting);
    lane.worker.postMessage(waiting.task);
  }

  /** The thread with the fewest signatures waiting, started if its slot is empty; null to sign inline. */
  private leastBusyLane(): Lane | null {
    let best: Lane | null = null;
    for (let slot = 0; slot < this.lanes.length; slot += 1) {
      const lane = this.lanes[slot] ?? this.start(slot);
      if (!lane) return null;
      if (lane.waiting.size === 0) return lane;
      if (!best || lane.waiting.size < best.waiting.size) best = lane;
    }
    return best;
  }

  private start(slot: number): Lane | null {
    let worker: Worker;
    try {
      worker = this.spawn();
    } catch (error) {
      this.signInlineFromNowOn(error instanceof Error ? error.message : 'unknown error');
      return null;
    }
    let markLoaded!: () => void;
    const loaded = new Promise<void>((resolve) => (markLoaded = resolve));
    const lane: Lane = { worker, waiting: new Map(), answered: false, loaded, markLoaded };
    worker.unref();
    worker.on('message', (reply: SignReply) => this.answer(lane, reply));
    // 'exit' follows; only the message is logged, a stack could quote request data.
    worker.on('error', (error) => this.logger.warn({ error: error.message }, 'signing thread failed'));
    worker.on('exit', (code) => this.lost(slot, lane, code));
    this.lanes[slot] = lane;
    return lane;
  }

  private answer(lane: Lane, reply: SignReply): void {
    if ('ready' in reply) {
      lane.markLoaded();
      return;
    }
    const waiting = lane.waiting.get(reply.id);
    if (!waiting) return;
    lane.waiting.delete(reply.id);
    lane.answered = true;
    this.failedStarts = 0;
    if (lane.waiting.size === 0) lane.worker.unref();
    if ('error' in reply) waiting.reject(new Error(reply.error));
    else waiting.resolve(reply.headers);
  }

  private lost(slot: number, lane: Lane, code: number): void {
    lane.markLoaded();
    if (this.lanes[slot] === lane) this.lanes[slot] = null;
    const orphans = [...lane.waiting.values()];
    lane.waiting.clear();
    if (this.closed) {
      for (const waiting of orphans) waiting.reject(new Error('The signer pool is closed'));
      return;
    }
    this.logger.warn(
      { exitCode: code, unanswered: orphans.length },
      'signing thread exited; starting another',
    );
    if (!lane.answered) this.failedStarts += 1;
    if (this.failedStarts >= MAX_FAILED_STARTS) this.signInlineFromNowOn('threads die before answering');
    for (const waiting of orphans) {
      if (waiting.orphaned) waiting.reject(new Error('Signing thread exited twice on this request'));
      else {
        waiting.orphaned = true;
        this.dispatch(waiting);
      }
    }
  }

  /** Better slow than stuck: e.g. a deployment that left the thread's file out. */
  private signInlineFromNowOn(why: string): void {
    if (this.inline) return;
    this.inline = true;
    this.logger.error({ why }, 'signing threads cannot start; signing on the event loop');
  }
}

/** The thread entry beside this file: `.js` when built; from TypeScript sources it goes through tsx. */
export function spawnSignerThread(): Worker {
  const self = new URL(import.meta.url);
  const entry = new URL(self.pathname.endsWith('.ts') ? './signer.thread.ts' : './signer.thread.js', self);
  if (!entry.pathname.endsWith('.ts')) return new Worker(entry);
  // Node 20 does not pass the parent's `--import tsx` hooks to worker threads: register them inside.
  // (Mocha runs this file as CommonJS, where import.meta has no resolve(): the ESM build of tsx's API
  // sits beside the CommonJS one that require finds.)
  const tsxApi = pathToFileURL(
    createRequire(self)
      .resolve('tsx/esm/api')
      .replace(/\.cjs$/, '.mjs'),
  ).href;
  const bootstrap = `import(${JSON.stringify(tsxApi)}).then((tsx) => { tsx.register(); return import(${JSON.stringify(entry.href)}); });`;
  return new Worker(bootstrap, { eval: true });
}
