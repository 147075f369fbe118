import type { KeyObject } from 'node:crypto';
import type { KeyCache } from './key-cache.js';

/** A request about to be sent. Header names may use any case; the signed copy is lower-case. */
export interface OutgoingRequest {
  method: string;
  url: string | URL;
  headers?: Record<string, string>;
  body?: Uint8Array | string;
}

/** A received request, in the shape of Node's IncomingMessage (`url` may be path+query or absolute). */
export interface IncomingSignedRequest {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body?: Uint8Array;
}

export interface SigningKey {
  /** Usually `<actor>#main-key`. */
  keyId: string;
  /** PEM (PKCS#8 or PKCS#1) or an already parsed KeyObject. */
  privateKey: string | KeyObject;
}

export interface ResolvedKey {
  publicKeyPem: string;
  /** The actor URI that owns the key. */
  owner: string;
}

/** Finds a key by id; `refresh: true` means "the copy you gave me failed, fetch it again". */
export type KeyResolver = (
  keyId: string,
  options: { refresh: boolean },
) => Promise<ResolvedKey | null> | ResolvedKey | null;

export type SignatureScheme = 'cavage' | 'rfc9421';

export type VerificationResult =
  | {
      ok: true;
      keyId: string;
      owner: string;
      algorithm: string;
      scheme: SignatureScheme;
      /** The verified signature bytes: they name this one request (its date, target and body). */
      signature: Uint8Array;
    }
  | { ok: false; reason: string; keyId?: string };

export interface VerifyOptions {
  /** How old a Date (or `created`) may be: 12 h by default. */
  maxAgeSeconds?: number;
  /** Clock skew tolerated on top of that, and the most a signature may be dated ahead: 1 h by default. */
  skewSeconds?: number;
  now?: Date;
  /** Scheme of this server as clients see it, for `@target-uri` when `url` is a path (default https). */
  scheme?: 'http' | 'https';
  keyCache?: KeyCache;
}

export interface SignOptions {
  now?: Date;
  keyCache?: KeyCache;
}
