import type { KeyObject } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { computeDigest, signRequest, signRequestAsync, type AsyncBytesSigner } from '../signatures/index.js';
import { signingThreads } from './signing-threads.js';

/**
 * Signing threads: one per core, at most 4. RSA signing is the CPU-heavy part of a delivery; each
 * thread signs without pause while there is work (see `SigningThreads`).
 */
export function defaultSignerThreads(): number {
  return Math.min(4, Math.max(1, availableParallelism()));
}

export interface AsyncSignerOptions {
  /** Threads that sign, shared with every signer of the process of the same size; 0 signs on the calling thread. */
  threads: number;
}

/**
 * Signs delivery POSTs on the process's signing threads, so the event loop keeps posting, answering
 * requests and talking to the database while the RSA operations run. The event loop only builds each
 * signing string (the body's digest once per body).
 */
export class AsyncSigner {
  /** The signing threads' `sign`; null signs inline. */
  private readonly signBytes: AsyncBytesSigner | null;
  private inFlight = 0;
  private closed = false;

  constructor(options: AsyncSignerOptions) {
    const threads = Math.max(0, Math.floor(options.threads));
    const pool = threads === 0 ? null : signingThreads(threads);
    this.signBytes = pool && ((algorithm, key, data) => pool.sign(algorithm, key, data));
  }

  /** Signatures asked of the threads and not yet answered. */
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
    if (!this.signBytes) return signRequest(request, key);
    this.inFlight += 1;
    try {
      return await signRequestAsync(request, key, this.signBytes);
    } finally {
      this.inFlight -= 1;
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
