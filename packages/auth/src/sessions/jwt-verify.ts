import { createHmac, timingSafeEqual, type KeyObject } from 'node:crypto';
import type { AccessTokenFailure } from './jwt-sessions.js';

/** The claims of a verified token: a JSON object whose registered claims passed the checks below. */
export type JwtClaims = Record<string, unknown> & { iss: string; iat: number; exp: number };

export interface HmacJwtCheck {
  key: KeyObject;
  algorithm: 'HS256' | 'HS512';
  issuer: string;
  now: Date;
}

const HASH = { HS256: 'sha256', HS512: 'sha512' } as const;
const SEGMENT = /^[A-Za-z0-9_-]+$/;
// jose checks presence in this order (its required claims, reversed, then iss); the first missing one names the failure.
const REQUIRED_CLAIMS = ['iss', 'iat', 'exp', 'jti', 'sub'] as const;

type Verified = { ok: true; payload: JwtClaims } | { ok: false; reason: AccessTokenFailure };

const INVALID: Verified = { ok: false, reason: 'invalid_token' };

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function decodeJson(segment: string): unknown {
  try {
    return JSON.parse(Buffer.from(segment, 'base64url').toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * Synchronous verification of a compact HS256/HS512 JWT with the checks and failure reasons jose's
 * `jwtVerify` gives for `{ algorithms: [algorithm], issuer, currentDate: now, requiredClaims:
 * ['sub', 'jti', 'exp', 'iat'] }`: jose's WebCrypto path re-imports the key and hops through promises
 * on every call, which was most of an authenticated read's CPU time.
 *
 * Stricter than jose in two ways that no token we issue meets: the signature must be the canonical
 * base64url of the MAC (no alternative encodings of the same bytes), and any `crit` header is refused.
 */
export function verifyCompactHmacJwt(token: string, check: HmacJwtCheck): Verified {
  const first = token.indexOf('.');
  const second = first < 0 ? -1 : token.indexOf('.', first + 1);
  if (second < 0 || token.indexOf('.', second + 1) >= 0) return INVALID;
  const header = token.slice(0, first);
  const body = token.slice(first + 1, second);
  const signature = token.slice(second + 1);
  if (!SEGMENT.test(header) || !SEGMENT.test(body)) return INVALID;

  // The MAC first: nothing an unauthenticated caller sent is parsed before it is known to be ours.
  const expected = Buffer.from(
    createHmac(HASH[check.algorithm], check.key).update(token.slice(0, second)).digest('base64url'),
  );
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return INVALID;

  const protectedHeader = decodeJson(header);
  if (!isPlainObject(protectedHeader) || protectedHeader.alg !== check.algorithm) return INVALID;
  if (protectedHeader.crit !== undefined) return INVALID;

  const claims = decodeJson(body);
  if (!isPlainObject(claims)) return INVALID;
  for (const claim of REQUIRED_CLAIMS) {
    if (!Object.hasOwn(claims, claim)) {
      return claim === 'iss' ? { ok: false, reason: 'invalid_issuer' } : INVALID;
    }
  }
  if (claims.iss !== check.issuer) return { ok: false, reason: 'invalid_issuer' };

  const now = Math.floor(check.now.getTime() / 1000);
  if (typeof claims.iat !== 'number') return INVALID;
  if (claims.nbf !== undefined && (typeof claims.nbf !== 'number' || claims.nbf > now)) return INVALID;
  if (typeof claims.exp !== 'number') return INVALID;
  if (claims.exp <= now) return { ok: false, reason: 'token_expired' };
  return { ok: true, payload: claims as JwtClaims };
}
