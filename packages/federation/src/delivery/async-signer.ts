import type { KeyObject } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { computeDigest, signRequest, signRequestAsync } from '../signatures/index.js';

/**
 * Signing cores: one per core, at most 4. RSA signing is the CPU-heavy part of a delivery; the signer
 * keeps twice this many signatures in libuv's threadpool (see `AsyncSigner`).
 */
export function defaultSignerThreads(): number {
  return Math.min(4, Math.max(1, availableParallelism()));
}

export interface AsyncSignerOptions {
  /**
   * Cores to sign on: twice as many signatures are handed to libuv's threadpool at once, so that a
   * thread that finishes one never waits for the event loop to hand it the next while the loop is busy
   * (the others keep the cores signing meanwhile). 0 signs on the calling thread.
   */
  threads: number;
}

/**
 * Signs delivery POSTs with `crypto.sign`'s callback form, so the RSA operation runs on libuv's
 * threadpool while the event loop keeps posting, answering requests and talking to the database.
 * The event loop only builds each signing string (the body's digest once per body); requests beyond
 * twice `threads` wait here, in order, rather than in the threadpool ahead of its file and DNS work.
 */
export class AsyncSigner {
  private readonly limit: number;
  private readonly waiting: Array<() => void> = [];
  private inFlight = 0;
  private closed = false;

  constructor(options: AsyncSignerOptions) {
    this.limit = 2 * Math.max(0, Math.floor(options.threads));
  }

  /** Signatures being computed now. */
  get running(): number {
    return this.inFlight;
  }

  /**
   * Every header of a signed POST (`host`, `date`, `digest`, `signature` and the given ones).
   * `digest`: the body's Digest header, when the caller signs many POSTs of one body.
   */
  async signPost(
    url: string,
    headers: Record<string, string>,
    body: string,
    key: { keyId: string; privateKey: KeyObject },
    digest?: string,
  ): Promise<Record<string, string>> {
    if (this.closed) throw new Error('The signer is closed');
    const request = { method: 'POST', url, headers, body, ...(digest === undefined ? {} : { digest }) };
    if (this.limit === 0) return signRequest(request, key);
    if (this.inFlight >= this.limit) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.inFlight += 1;
    try {
      return await signRequestAsync(request, key);
    } finally {
      // The slot passes straight to the next waiting request.
      const next = this.waiting.shift();
      if (next) next();
      else this.inFlight -= 1;
    }
  }

  /** The Digest header of a body, computed once for all the POSTs that carry it. */
  digestOf(body: string): string {
    return computeDigest(body);
  }

  /** Refuses further signatures; those already started finish. */
  close(): void {
    this.closed = true;
  }
}
