import type { KeyObject } from 'node:crypto';
import type { KeyCache } from './key-cache.js';

/** A request about to be sent. Header names may use any case; the signed copy is lower-case. */
export interface OutgoingRequest {
  method: string;
  url: string | URL;
  headers?: Record<string, string>;
  body?: Uint8Array | string;
  /** The body's `Digest` header when the caller computed it once for many requests with this body. */
  digest?: string;
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

/**
 * Why a signed request was refused: a closed set, so every caller can switch over it exhaustively.
 * The `detail` beside it (which header, which component) is for our logs, not for the peer.
 */
export type SignatureFailure =
  /** No `Signature` (or `Authorization: Signature`) header, or Signature-Input without Signature. */
  | 'missing_signature'
  /** A signature field that does not parse, or lacks its keyId, its value or a usable parameter. */
  | 'malformed_signature'
  /** An algorithm we do not accept, or one that does not fit the signer's key. */
  | 'unsupported_algorithm'
  /** An RFC 9421 component or component parameter we do not implement. */
  | 'unsupported_component'
  /** The signature leaves out what must be signed (target, method, Date or created, Host). */
  | 'insufficient_coverage'
  /** A header the signature covers is not in the request. */
  | 'missing_signed_header'
  /** A request with a body whose digest is not signed. */
  | 'missing_digest'
  /** A digest header that does not parse or uses no algorithm we accept. */
  | 'malformed_digest'
  | 'digest_mismatch'
  /** A signed Date that is not a date. */
  | 'invalid_date'
  /** Dated or created before the accepted window, or past its `expires`. */
  | 'expired'
  /** Dated or created more than the clock skew ahead. */
  | 'future_date'
  /** The request's own URL or Host do not give a target to check against. */
  | 'bad_request_target'
  /** No key of that id could be found (or fetched). */
  | 'unknown_key'
  /** The key found could not be parsed. */
  | 'invalid_key'
  /** The cryptographic check failed, also after re-fetching the key once. */
  | 'bad_signature';

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
  | { ok: false; reason: SignatureFailure; detail: string; keyId?: string };

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
