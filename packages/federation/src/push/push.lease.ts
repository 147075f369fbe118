// Mastodon's hub bounds (Subscription::MIN_EXPIRATION / MAX_EXPIRATION): a day to thirty days.
export const MIN_LEASE_SECONDS = 86_400;
export const MAX_LEASE_SECONDS = 30 * 86_400;
/** What a subscriber assumes when the hub's verification names no lease (GNU social omits it). */
export const DEFAULT_LEASE_SECONDS = 86_400;

/** The lease a hub grants for a requested `hub.lease_seconds`: missing or junk asks for the minimum. */
export function grantedLeaseSeconds(requested: unknown): number {
  const asked = typeof requested === 'string' && /^\s*\d{1,12}\s*$/.test(requested) ? Number(requested) : 0;
  return Math.min(MAX_LEASE_SECONDS, Math.max(MIN_LEASE_SECONDS, asked));
}

/** The lease a hub announced in its verification GET, or the default when absent or unreadable. */
export function announcedLeaseSeconds(announced: unknown): number {
  if (typeof announced !== 'string' || !/^\s*\d{1,12}\s*$/.test(announced)) return DEFAULT_LEASE_SECONDS;
  const seconds = Number(announced);
  return seconds > 0 ? seconds : DEFAULT_LEASE_SECONDS;
}
