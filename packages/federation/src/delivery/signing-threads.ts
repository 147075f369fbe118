import type { KeyObject } from 'node:crypto';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { CryptoAlgorithm } from '../signatures/signature-algorithms.js';
import type { SigningAnswer, SigningBatch } from './signing-worker.js';

// Strings per message to a thread: few messages (each wakes a thread and then the event loop), yet
// the first POSTs of a fan-out need not wait for all of its signatures.
const BATCH = 16;
// Signatures handed to one thread and not yet answered: the next batch waits in the thread's port
// while it signs this one, so it never sleeps between batches (ADR 0056).
const AHEAD = 2 * BATCH;

interface Request {
  algorithm: CryptoAlgorithm;
  key: KeyObject;
  data: string;
  resolve: (signature: Buffer) => void;
  reject: (error: Error) => void;
}

interface Thread {
  worker: Worker;
  /** Signatures asked of it and not answered. */
  outstanding: number;
  batches: Map<number, Request[]>;
}

/**
 * A few worker threads that do nothing but sign (one per core the caller grants), fed in batches by
 * the event loop: what is asked in one turn of the loop goes out together, so a fan-out of fifty
 * POSTs costs a handful of messages rather than a threadpool round trip per signature. Shared by
 * every signer of the process (`signingThreads`), as libuv's threadpool was.
 */
export class SigningThreads {
  private readonly threads: Thread[] = [];
  private readonly waiting: Request[] = [];
  private scheduled = false;
  private nextId = 0;

  constructor(private readonly size: number) {}

  sign(algorithm: CryptoAlgorithm, key: KeyObject, data: string): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ algorithm, key, data, resolve, reject });
      if (this.scheduled) return;
      this.scheduled = true;
      setImmediate(() => {
        this.scheduled = false;
        this.dispatch();
      });
    });
  }

  /** Hands waiting requests to the least busy threads, up to AHEAD each. */
  private dispatch(): void {
    while (this.waiting.length > 0) {
      const thread = this.leastBusy();
      if (thread.outstanding >= AHEAD) return;
      const first = this.waiting[0] as Request;
      // One batch, one key and algorithm: a batch stops at the first request that differs.
      let count = 1;
      while (count < BATCH && count < this.waiting.length) {
        const next = this.waiting[count] as Request;
        if (next.key !== first.key || next.algorithm !== first.algorithm) break;
        count += 1;
      }
      const requests = this.waiting.splice(0, count);
      const id = (this.nextId = (this.nextId + 1) % Number.MAX_SAFE_INTEGER);
      thread.batches.set(id, requests);
      // A thread with work keeps the process alive until it answers; an idle one does not.
      if (thread.outstanding === 0) thread.worker.ref();
      thread.outstanding += count;
      const batch: SigningBatch = {
        id,
        algorithm: first.algorithm,
        key: first.key,
        data: requests.map((r) => r.data),
      };
      thread.worker.postMessage(batch);
    }
  }

  private leastBusy(): Thread {
    let best: Thread | undefined;
    for (const thread of this.threads) if (!best || thread.outstanding < best.outstanding) best = thread;
    if ((!best || best.outstanding > 0) && this.threads.length < this.size) return this.spawn();
    return best as Thread;
  }

  private spawn(): Thread {
    // The worker's source sits next to this module: .ts under tsx (tests), .js once built.
    const here = fileURLToPath(import.meta.url);
    const worker = new Worker(new URL(`./signing-worker${extname(here)}`, import.meta.url));
    const thread: Thread = { worker, outstanding: 0, batches: new Map() };
    worker.on('message', (answer: SigningAnswer) => {
      const requests = thread.batches.get(answer.id);
      if (!requests) return;
      thread.batches.delete(answer.id);
      thread.outstanding -= requests.length;
      if (thread.outstanding === 0) worker.unref();
      if ('error' in answer) for (const request of requests) request.reject(new Error(answer.error));
      else
        requests.forEach((request, n) => {
          const signature = answer.signatures[n] as Uint8Array;
          request.resolve(Buffer.from(signature.buffer, signature.byteOffset, signature.byteLength));
        });
      this.dispatch();
    });
    // A thread that dies fails what it held; the next dispatch starts another.
    const lost = (error: Error): void => {
      const at = this.threads.indexOf(thread);
      if (at < 0) return;
      this.threads.splice(at, 1);
      for (const requests of thread.batches.values()) for (const request of requests) request.reject(error);
      thread.batches.clear();
      this.dispatch();
    };
    worker.on('error', lost);
    worker.on('exit', (code) => lost(new Error(`The signing thread exited (${code})`)));
    // After the listeners, which would otherwise hold the process open again.
    worker.unref();
    this.threads.push(thread);
    return thread;
  }
}

const shared = new Map<number, SigningThreads>();

/** The process's signing threads of that size, started on first use. */
export function signingThreads(size: number): SigningThreads {
  let pool = shared.get(size);
  if (!pool) {
    pool = new SigningThreads(size);
    shared.set(size, pool);
  }
  return pool;
}
