import { refusal, type Refusal } from './prepared-signature.js';
import type { VerifyOptions } from './signature.types.js';

export const DEFAULT_MAX_AGE_SECONDS = 12 * 60 * 60;
export const DEFAULT_SKEW_SECONDS = 60 * 60;

export interface TimeWindow {
  now: number;
  maxAge: number;
  skew: number;
}

export function timeWindow(options: VerifyOptions): TimeWindow {
  return {
    now: Math.floor((options.now ?? new Date()).getTime() / 1000),
    maxAge: options.maxAgeSeconds ?? DEFAULT_MAX_AGE_SECONDS,
    skew: options.skewSeconds ?? DEFAULT_SKEW_SECONDS,
  };
}

/**
 * A signed Date may be up to the window plus the skew old, and at most the skew ahead (as Mastodon:
 * a request dated hours ahead is pre-signed to be replayed later). Returns a reason or null.
 */
export function checkDate(value: string, window: TimeWindow): Refusal | null {
  const sent = Date.parse(value);
  if (Number.isNaN(sent)) return refusal('invalid_date', 'Date header is not a valid date');
  const age = window.now - Math.floor(sent / 1000);
  if (age < -window.skew) return refusal('future_date', 'Date is in the future');
  if (age > window.maxAge + window.skew) return refusal('expired', 'Date is outside the accepted window');
  return null;
}

/** `created` says when the signature was made: never beyond the skew into the future. */
export function checkCreated(created: number, window: TimeWindow): Refusal | null {
  if (created > window.now + window.skew)
    return refusal('future_date', 'Signature was created in the future');
  if (window.now - created > window.maxAge + window.skew)
    return refusal('expired', 'Signature creation time is outside the accepted window');
  return null;
}

export function checkExpires(expires: number, window: TimeWindow): Refusal | null {
  return expires < window.now - window.skew ? refusal('expired', 'Signature has expired') : null;
}
