import { timingSafeEqual } from 'node:crypto';
import { HOTP, Secret, TOTP } from 'otpauth';

// What every authenticator app assumes when the URI says nothing else (RFC 6238 defaults).
export const TOTP_PERIOD_SECONDS = 30;
export const TOTP_DIGITS = 6;
export const TOTP_ALGORITHM = 'SHA1';
/** Steps of clock drift accepted on either side of the current one. */
export const TOTP_DRIFT_STEPS = 1;
/** 160 bits, the key size RFC 4226 recommends for HMAC-SHA-1. */
const SECRET_BYTES = 20;

export interface TotpEnrollment {
  /** Base32 secret: store it with the user (it must stay readable to check codes). */
  secret: string;
  /** `otpauth://totp/…` URI for the QR code an authenticator app scans. */
  uri: string;
}

export interface TotpCheck {
  ok: boolean;
  /** The time step the code belonged to; store it and pass it back as `lastUsedStep`. */
  step: number | null;
}

export interface TotpCheckOptions {
  /** The step of the last code this user signed in with; codes of that step or earlier are refused. */
  lastUsedStep?: number | null;
  now?: Date;
}

/** Starts an enrollment: a fresh random secret and the URI to show as a QR code. */
export function createTotpEnrollment({
  issuer,
  accountName,
}: {
  issuer: string;
  accountName: string;
}): TotpEnrollment {
  const totp = new TOTP({
    issuer,
    label: accountName,
    issuerInLabel: true,
    secret: new Secret({ size: SECRET_BYTES }),
    algorithm: TOTP_ALGORITHM,
    digits: TOTP_DIGITS,
    period: TOTP_PERIOD_SECONDS,
  });
  return { secret: totp.secret.base32, uri: totp.toString() };
}

/** The RFC 6238 time step (counter) that `now` falls in. */
export function totpStep(now: Date = new Date()): number {
  return Math.floor(now.getTime() / 1000 / TOTP_PERIOD_SECONDS);
}

/** The code an authenticator app shows at `now` (for tests and tooling that play the user's phone). */
export function totpCode(secret: string, { now = new Date() }: { now?: Date } = {}): string {
  return codeAt(Secret.fromBase32(secret), totpStep(now));
}

/**
 * Checks a code against the current step ±1 and refuses any step at or before `lastUsedStep`,
 * so a code seen once (over a shoulder, in a proxy log) cannot be replayed.
 */
export function verifyTotp(secret: string, code: string, options: TotpCheckOptions = {}): TotpCheck {
  const token = code.replace(/\s+/g, '');
  if (!/^\d+$/.test(token) || token.length !== TOTP_DIGITS) return { ok: false, step: null };
  const key = Secret.fromBase32(secret);
  const current = totpStep(options.now);
  const floor = options.lastUsedStep ?? Number.NEGATIVE_INFINITY;
  const given = Buffer.from(token);
  let accepted: number | null = null;
  // The current step first, then the neighbours; every candidate is computed so timing says nothing.
  const candidates = [current];
  for (let drift = 1; drift <= TOTP_DRIFT_STEPS; drift += 1)
    candidates.push(current - drift, current + drift);
  for (const step of candidates) {
    const same = timingSafeEqual(Buffer.from(codeAt(key, step)), given);
    if (same && step > floor && accepted === null) accepted = step;
  }
  return accepted === null ? { ok: false, step: null } : { ok: true, step: accepted };
}

function codeAt(secret: Secret, step: number): string {
  return HOTP.generate({ secret, algorithm: TOTP_ALGORITHM, digits: TOTP_DIGITS, counter: step });
}
