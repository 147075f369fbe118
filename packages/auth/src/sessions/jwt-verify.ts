import { webcrypto } from 'node:crypto';
import { errors, jwtVerify } from 'jose';
import type { AccessTokenFailure } from './jwt-sessions.js';

/** The claims of a verified token: a JSON object whose registered claims passed the checks below. */
export type JwtClaims = Record<string, unknown> & { iss: string; iat: number; exp: number };

export type HmacAlgorithm = 'HS256' | 'HS512';

export interface HmacJwtCheck {
  /** From `hmacVerifyKey`: made once, so no verification imports the secret again. */
  key: webcrypto.CryptoKey;
  algorithm: HmacAlgorithm;
  issuer: string;
  now: Date;
}

type Verified = { ok: true; payload: JwtClaims } | { ok: false; reason: AccessTokenFailure };

const INVALID: Verified = { ok: false, reason: 'invalid_token' };
const HASH = { HS256: 'SHA-256', HS512: 'SHA-512' } as const;
const REQUIRED_CLAIMS = ['sub', 'jti', 'exp', 'iat'];

/** The secret as a WebCrypto key for verifying `algorithm` MACs (what jose verifies with). */
export function hmacVerifyKey(secret: Uint8Array, algorithm: HmacAlgorithm): Promise<webcrypto.CryptoKey> {
  return webcrypto.subtle.importKey('raw', secret, { name: 'HMAC', hash: HASH[algorithm] }, false, [
    'verify',
  ]);
}

/**
 * Verifies a compact HS256/HS512 JWT with jose: signature, `alg` (only `algorithm`), issuer, the
 * required claims, `nbf` and `exp` at `now`. Failures come back as reasons, never as throws: an
 * expired token is `token_expired`, a foreign or missing issuer `invalid_issuer`, anything else
 * `invalid_token`.
 *
 * One check of ours before jose's: the signature must be the canonical base64url of its bytes. jose
 * accepts the spellings that differ only in unused trailing bits, and each would be a distinct entry
 * of the verified-token cache for one token.
 */
export async function verifyHmacJwt(token: string, check: HmacJwtCheck): Promise<Verified> {
  const signature = token.slice(token.lastIndexOf('.') + 1);
  if (Buffer.from(signature, 'base64url').toString('base64url') !== signature) return INVALID;
  try {
    const { payload } = await jwtVerify(token, check.key, {
      algorithms: [check.algorithm],
      issuer: check.issuer,
      currentDate: check.now,
      requiredClaims: REQUIRED_CLAIMS,
    });
    return { ok: true, payload: payload as JwtClaims };
  } catch (error) {
    if (error instanceof errors.JWTExpired) return { ok: false, reason: 'token_expired' };
    if (error instanceof errors.JWTClaimValidationFailed && error.claim === 'iss') {
      return { ok: false, reason: 'invalid_issuer' };
    }
    // Every fault of the token is a JOSEError; anything else (a key of the wrong kind) is ours.
    if (error instanceof errors.JOSEError) return INVALID;
    throw error;
  }
}
