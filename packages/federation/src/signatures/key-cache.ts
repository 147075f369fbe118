import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';

export const DEFAULT_KEY_CACHE_SIZE = 10_000;

/**
 * A bounded LRU from PEM text to parsed KeyObject: parsing a PEM costs far more than an RSA
 * verification, and the same few thousand remote keys sign almost every request.
 */
export class KeyCache {
  private readonly entries = new Map<string, KeyObject>();
  /** Lookups answered without parsing. */
  hits = 0;
  /** Lookups that had to parse a PEM. */
  misses = 0;

  constructor(readonly maxEntries: number = DEFAULT_KEY_CACHE_SIZE) {
    if (!Number.isInteger(maxEntries) || maxEntries < 1) throw new RangeError('maxEntries must be ≥ 1');
  }

  get size(): number {
    return this.entries.size;
  }

  /** The public key in `pem`; throws if it is not a key. */
  publicKey(pem: string): KeyObject {
    return this.lookup(`public\n${pem}`, () => createPublicKey(pem));
  }

  /** The private key in `pem`, for signing; throws if it is not a private key. */
  privateKey(pem: string): KeyObject {
    return this.lookup(`private\n${pem}`, () => createPrivateKey(pem));
  }

  clear(): void {
    this.entries.clear();
  }

  private lookup(key: string, parse: () => KeyObject): KeyObject {
    const cached = this.entries.get(key);
    if (cached) {
      this.hits += 1;
      // Re-inserting moves the entry to the young end of the Map's insertion order.
      this.entries.delete(key);
      this.entries.set(key, cached);
      return cached;
    }
    this.misses += 1;
    const parsed = parse();
    this.entries.set(key, parsed);
    if (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    return parsed;
  }
}

// Content-addressed, so sharing it between servers or tests leaks nothing and changes no result.
export const defaultKeyCache = new KeyCache();
