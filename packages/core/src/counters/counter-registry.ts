import type { Logger } from '../logger/logger.js';

/** Counts something, usually with one SQL COUNT on the table of the module that owns the rows. */
export type Counter = () => Promise<number>;

export interface CounterRegistryOptions {
  logger?: Logger;
  /** How long a snapshot is reused; 0 counts afresh every time. */
  ttlMs?: number;
  /** true (default): a failing counter reads 0 and is logged; false: the snapshot fails with it. */
  failuresReadZero?: boolean;
  now?: () => number;
}

/**
 * Instance-wide figures (statistics, NodeInfo usage) whose rows belong to other modules: each module
 * contributes its counter when the context is composed. A figure nobody contributes is 0 — nothing of
 * that kind can exist yet. By default a counter that fails reads 0 (logged) rather than breaking the
 * page that shows it. Concurrent callers share one computation.
 */
export class CounterRegistry<K extends string> {
  private readonly counters = new Map<K, Counter>();
  private cached: { values: Record<K, number>; expiresAt: number } | null = null;
  private pending: Promise<Record<K, number>> | null = null;

  constructor(
    readonly names: readonly K[],
    private readonly options: CounterRegistryOptions = {},
  ) {}

  /** Makes `counter` the source of one figure; a second contribution to the same figure is a wiring bug. */
  contribute(name: K, counter: Counter): void {
    if (!this.names.includes(name)) throw new Error(`"${name}" is not a figure of this registry`);
    if (this.counters.has(name)) throw new Error(`"${name}" already has a counter`);
    this.counters.set(name, counter);
    this.cached = null;
  }

  async snapshot(): Promise<Record<K, number>> {
    const now = this.options.now ?? Date.now;
    if (this.cached && this.cached.expiresAt > now()) return this.cached.values;
    this.pending ??= this.count().finally(() => (this.pending = null));
    return this.pending;
  }

  private async count(): Promise<Record<K, number>> {
    const values = await Promise.all(this.names.map((name) => this.countOne(name)));
    const snapshot = Object.fromEntries(
      this.names.map((name, index) => [name, values[index] ?? 0]),
    ) as Record<K, number>;
    const ttlMs = this.options.ttlMs ?? 0;
    this.cached =
      ttlMs > 0 ? { values: snapshot, expiresAt: (this.options.now ?? Date.now)() + ttlMs } : null;
    return snapshot;
  }

  private async countOne(name: K): Promise<number> {
    const counter = this.counters.get(name);
    if (!counter) return 0;
    try {
      const value = await counter();
      return Number.isFinite(value) && value >= 0 ? Math.floor(value) : 0;
    } catch (error) {
      if (this.options.failuresReadZero === false) throw error;
      this.options.logger?.error({ err: error, counter: name }, 'counter failed');
      return 0;
    }
  }
}
