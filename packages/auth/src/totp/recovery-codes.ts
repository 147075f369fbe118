import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** Each enablement of two-factor sign-in hands out exactly this many single-use codes (microblog reference). */
export const RECOVERY_CODE_COUNT = 10;
/** 5 random bytes → 10 hex characters, shown as `xxxxx-xxxxx`. */
const CODE_BYTES = 5;
const CODE_PATTERN = /^[0-9a-f]{10}$/;

/** Ten distinct codes to show the user once; store only their hashRecoveryCode values. */
export function generateRecoveryCodes(): string[] {
  const codes = new Set<string>();
  while (codes.size < RECOVERY_CODE_COUNT) {
    const hex = randomBytes(CODE_BYTES).toString('hex');
    codes.add(`${hex.slice(0, 5)}-${hex.slice(5)}`);
  }
  return [...codes];
}

/** The canonical form of what a user typed (any case, spaces, hyphens or typographic dashes), or null if not a code. */
export function normalizeRecoveryCode(code: string): string | null {
  const canonical = code.toLowerCase().replace(/[\s\u2010-\u2015-]+/g, '');
  return CODE_PATTERN.test(canonical) ? canonical : null;
}

/**
 * Plain SHA-256 (hex) of the canonical code. A slow hash buys nothing here: the codes are random,
 * online guessing is rate-limited, and whoever can read these hashes also reads the TOTP secret
 * stored beside them, which already yields the second factor.
 */
export function hashRecoveryCode(code: string): string {
  const canonical = normalizeRecoveryCode(code);
  if (canonical === null) throw new TypeError('Not a recovery code');
  return digest(canonical).toString('hex');
}

export type RecoveryCodeUse = { ok: true; remaining: string[] } | { ok: false };

/**
 * Spends one code: on a match, `remaining` is the stored list without it (the caller saves it, so the
 * code works once). Every stored hash is compared in constant time, with no early exit.
 */
export function consumeRecoveryCode(hashes: readonly string[], code: string): RecoveryCodeUse {
  const canonical = normalizeRecoveryCode(code);
  if (canonical === null) return { ok: false };
  const candidate = digest(canonical);
  let match = -1;
  hashes.forEach((stored, index) => {
    const bytes = Buffer.from(stored, 'hex');
    if (bytes.length === candidate.length && timingSafeEqual(bytes, candidate) && match === -1) match = index;
  });
  if (match === -1) return { ok: false };
  return { ok: true, remaining: hashes.filter((_, index) => index !== match) };
}

function digest(canonical: string): Buffer {
  return createHash('sha256').update(canonical).digest();
}
