import { createHash, randomBytes } from 'node:crypto';

/** The reference refuses to send a confirmation or reset email again within this many seconds. */
export const RESEND_INTERVAL_SECONDS = 100;

/** Hours an account may stay unconfirmed before the purge deletes it (the reference's default). */
export const UNCONFIRMED_GRACE_PERIOD_HOURS = 48;

/** A single-use email token: 32 random bytes, base64url (43 characters). Only its hash is stored. */
export function generateToken(): string {
  return randomBytes(32).toString('base64url');
}

/** What the database keeps of a token: the SHA-256 hex digest (lookups compare digests, never plaintext). */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Whether an email last sent at `sentAt` may be sent again at `now`. */
export function canResend(sentAt: Date | null | undefined, now: Date): boolean {
  return !sentAt || now.getTime() - sentAt.getTime() >= RESEND_INTERVAL_SECONDS * 1000;
}

/** Seconds left before `canResend` turns true (0 when it already is). */
export function secondsUntilResend(sentAt: Date | null | undefined, now: Date): number {
  if (!sentAt) return 0;
  const left = RESEND_INTERVAL_SECONDS * 1000 - (now.getTime() - sentAt.getTime());
  return left > 0 ? Math.ceil(left / 1000) : 0;
}
