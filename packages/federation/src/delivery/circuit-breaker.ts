/** Per-process memory of failing inboxes; each worker process keeps its own (like Mastodon's per-host stoplight). */
export class CircuitBreaker {
  private readonly failures = new Map<string, { count: number; openUntil: number }>();

  constructor(
    private readonly threshold: number,
    private readonly openMs: number,
    private readonly now: () => number,
    /** Bound on remembered inboxes; the oldest entry is forgotten first. */
    private readonly maxEntries = 10_000,
  ) {}

  /** Milliseconds until this inbox may be tried again; 0 when it may be tried now. */
  waitMs(key: string): number {
    const entry = this.failures.get(key);
    if (!entry) return 0;
    return Math.max(0, entry.openUntil - this.now());
  }

  succeeded(key: string): void {
    this.failures.delete(key);
  }

  /** Counts a failure; at the threshold (and on every failure after it) the circuit opens again. */
  failed(key: string): void {
    const entry = this.failures.get(key) ?? { count: 0, openUntil: 0 };
    entry.count += 1;
    if (entry.count >= this.threshold) entry.openUntil = this.now() + this.openMs;
    // Re-inserting keeps the Map in least-recently-failed order.
    this.failures.delete(key);
    this.failures.set(key, entry);
    if (this.failures.size > this.maxEntries) {
      const oldest = this.failures.keys().next();
      if (!oldest.done) this.failures.delete(oldest.value);
    }
  }
}
