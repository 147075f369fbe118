import { QueryTypes, type Sequelize } from 'sequelize';

// The unavailable set is re-read at most this often per process; it is small and changes daily.
const UNAVAILABLE_REFRESH_MS = 10_000;
// A success clears a domain's failure days at most this often per process, unless a failure came between.
const SUCCESS_WRITE_INTERVAL_MS = 60_000;

/**
 * Mastodon's DeliveryFailureTracker in PostgreSQL: a failed delivery records the UTC day; failures
 * on `threshold` distinct days mark the domain unavailable; any success clears both.
 */
export class DomainAvailability {
  private unavailable: Set<string> | null = null;
  private loadedAt = 0;
  private readonly lastSuccessWrite = new Map<string, number>();

  constructor(
    private readonly sequelize: Sequelize,
    private readonly threshold: number,
    private readonly now: () => Date,
  ) {}

  async isAvailable(domain: string): Promise<boolean> {
    return !(await this.unavailableSet()).has(domain);
  }

  /** Records today's failure; returns true when this made the domain unavailable. */
  async recordFailure(domain: string): Promise<boolean> {
    this.lastSuccessWrite.delete(domain);
    const day = this.now().toISOString().slice(0, 10);
    await this.sequelize.query(
      'INSERT INTO delivery_failure_days (domain, day) VALUES ($1, $2::date) ON CONFLICT DO NOTHING',
      { bind: [domain, day], type: QueryTypes.INSERT },
    );
    const rows = await this.sequelize.query<{ domain: string }>(
      `INSERT INTO unavailable_domains (domain, created_at)
       SELECT $1, $2 WHERE (SELECT count(*) FROM delivery_failure_days WHERE domain = $1) >= $3
       ON CONFLICT DO NOTHING RETURNING domain`,
      { bind: [domain, this.now(), this.threshold], type: QueryTypes.SELECT },
    );
    const marked = rows.length > 0;
    if (marked) this.unavailable?.add(domain);
    return marked;
  }

  /** A delivery (or any sign of life, e.g. a signed request from it) went through. */
  async recordSuccess(domain: string, options: { force?: boolean } = {}): Promise<void> {
    const at = Date.now();
    const last = this.lastSuccessWrite.get(domain);
    if (!options.force && last !== undefined && at - last < SUCCESS_WRITE_INTERVAL_MS) return;
    this.lastSuccessWrite.set(domain, at);
    if (this.lastSuccessWrite.size > 10_000) this.lastSuccessWrite.clear();
    await this.sequelize.query(
      `WITH cleared AS (DELETE FROM delivery_failure_days WHERE domain = $1)
       DELETE FROM unavailable_domains WHERE domain = $1`,
      { bind: [domain], type: QueryTypes.DELETE },
    );
    this.unavailable?.delete(domain);
  }

  async listUnavailable(): Promise<string[]> {
    return [...(await this.unavailableSet(true))].sort();
  }

  private async unavailableSet(fresh = false): Promise<Set<string>> {
    if (!fresh && this.unavailable && Date.now() - this.loadedAt < UNAVAILABLE_REFRESH_MS)
      return this.unavailable;
    const rows = await this.sequelize.query<{ domain: string }>('SELECT domain FROM unavailable_domains', {
      type: QueryTypes.SELECT,
    });
    this.unavailable = new Set(rows.map((row) => row.domain));
    this.loadedAt = Date.now();
    return this.unavailable;
  }
}
