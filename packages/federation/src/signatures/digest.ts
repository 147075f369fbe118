import { createHash, timingSafeEqual } from 'node:crypto';
import { isInnerList, parseDictionary } from 'structured-headers';
import { refusal, type Refusal } from './prepared-signature.js';

export type DigestAlgorithm = 'sha256' | 'sha512';

// Weaker or exotic algorithms (MD5, SHA-1, unixsum) are ignored: they prove nothing about the body.
const DIGEST_NAMES: Record<string, DigestAlgorithm> = { 'sha-256': 'sha256', 'sha-512': 'sha512' };

export type DigestCheck = 'match' | 'mismatch' | 'unsupported' | 'malformed';

function toBytes(body: Uint8Array | string | undefined): Uint8Array {
  if (body === undefined) return new Uint8Array();
  return typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
}

function hash(algorithm: DigestAlgorithm, body: Uint8Array | string | undefined): Buffer {
  return createHash(algorithm).update(toBytes(body)).digest();
}

/** The draft-cavage `Digest` header value (RFC 3230 form): `SHA-256=<base64>`. */
export function computeDigest(body: Uint8Array | string): string {
  return `SHA-256=${hash('sha256', body).toString('base64')}`;
}

/** The RFC 9530 `Content-Digest` header value: `sha-256=:<base64>:`. */
export function contentDigest(body: Uint8Array | string): string {
  return `sha-256=:${hash('sha256', body).toString('base64')}:`;
}

function compare(expected: Buffer, given: Uint8Array): boolean {
  return expected.length === given.length && timingSafeEqual(expected, given);
}

/**
 * Every supported algorithm listed must match; at least one must be listed. One wrong value among
 * right ones is still a mismatch, so an attacker cannot append a decoy.
 */
function checkAll(entries: Array<[string, Uint8Array]>, body: Uint8Array | undefined): DigestCheck {
  let checked = 0;
  for (const [name, given] of entries) {
    const algorithm = DIGEST_NAMES[name.toLowerCase()];
    if (!algorithm) continue;
    if (!compare(hash(algorithm, body), given)) return 'mismatch';
    checked += 1;
  }
  return checked > 0 ? 'match' : 'unsupported';
}

/** The refusal a digest check calls for, if any; `field` names the header in the detail. */
export function digestRefusal(
  check: DigestCheck,
  field: 'Digest' | 'Content-Digest',
  keyId: string,
): Refusal | null {
  switch (check) {
    case 'match':
      return null;
    case 'mismatch':
      return refusal('digest_mismatch', `${field} does not match the body`, keyId);
    case 'unsupported':
      return refusal('malformed_digest', `${field} uses no supported algorithm (SHA-256 or SHA-512)`, keyId);
    case 'malformed':
      return refusal('malformed_digest', `${field} header is malformed`, keyId);
    default:
      return check satisfies never;
  }
}

/** Checks a `Digest: SHA-256=…,SHA-512=…` header against the body. */
export function checkDigestHeader(header: string, body: Uint8Array | undefined): DigestCheck {
  const entries: Array<[string, Uint8Array]> = [];
  for (const part of header.split(',')) {
    const separator = part.indexOf('=');
    if (separator <= 0) return 'malformed';
    const value = part.slice(separator + 1).trim();
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(value)) return 'malformed';
    entries.push([part.slice(0, separator).trim(), Buffer.from(value, 'base64')]);
  }
  return checkAll(entries, body);
}

/** Checks an RFC 9530 `Content-Digest` dictionary against the body. */
export function checkContentDigestHeader(header: string, body: Uint8Array | undefined): DigestCheck {
  const entries: Array<[string, Uint8Array]> = [];
  try {
    for (const [name, member] of parseDictionary(header)) {
      if (isInnerList(member) || !(member[0] instanceof ArrayBuffer)) return 'malformed';
      entries.push([name, new Uint8Array(member[0])]);
    }
  } catch {
    return 'malformed';
  }
  return checkAll(entries, body);
}
