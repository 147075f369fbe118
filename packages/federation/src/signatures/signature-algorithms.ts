import { constants, sign, verify, type KeyObject } from 'node:crypto';

/** What actually runs, once the declared algorithm and the key type have been reconciled. */
export type CryptoAlgorithm = 'rsa-v1_5-sha256' | 'rsa-pss-sha512' | 'ed25519';

/**
 * Maps a declared algorithm (draft-cavage `algorithm` or RFC 9421 `alg`, maybe absent) and a key to
 * the operation to run, or null when they do not fit together. hs2019 means "ask the key".
 */
export function cryptoAlgorithmFor(declared: string | undefined, key: KeyObject): CryptoAlgorithm | null {
  const type = key.asymmetricKeyType;
  switch (declared) {
    case 'rsa-sha256':
    case 'rsa-v1_5-sha256':
      return type === 'rsa' ? 'rsa-v1_5-sha256' : null;
    case 'rsa-pss-sha512':
      return type === 'rsa' || type === 'rsa-pss' ? 'rsa-pss-sha512' : null;
    case 'ed25519':
      return type === 'ed25519' ? 'ed25519' : null;
    case 'hs2019':
    case undefined:
      if (type === 'rsa') return 'rsa-v1_5-sha256';
      if (type === 'rsa-pss') return 'rsa-pss-sha512';
      if (type === 'ed25519') return 'ed25519';
      return null;
    default:
      return null;
  }
}

export const CAVAGE_ALGORITHMS = new Set(['rsa-sha256', 'hs2019']);
export const RFC9421_ALGORITHMS = new Set(['rsa-v1_5-sha256', 'rsa-pss-sha512', 'ed25519']);

// RFC 9421 §3.3.1: PSS with SHA-512, MGF1 over SHA-512 (Node's default) and a 64-byte salt.
const PSS = { padding: constants.RSA_PKCS1_PSS_PADDING, saltLength: 64 };

export function signBytes(algorithm: CryptoAlgorithm, key: KeyObject, data: string): Buffer {
  const bytes = Buffer.from(data, 'utf8');
  if (algorithm === 'ed25519') return sign(null, bytes, key);
  if (algorithm === 'rsa-pss-sha512') return sign('sha512', bytes, { key, ...PSS });
  return sign('sha256', bytes, key);
}

export function verifyBytes(
  algorithm: CryptoAlgorithm,
  key: KeyObject,
  data: string,
  signature: Uint8Array,
): boolean {
  const bytes = Buffer.from(data, 'utf8');
  try {
    if (algorithm === 'ed25519') return verify(null, bytes, key, signature);
    if (algorithm === 'rsa-pss-sha512') return verify('sha512', bytes, { key, ...PSS }, signature);
    return verify('sha256', bytes, key, signature);
  } catch {
    // A signature of the wrong length (or similar garbage) is simply not a valid signature.
    return false;
  }
}
