import { QueryTypes, type Sequelize, type Transaction } from 'sequelize';

export type DomainBlockSeverity = 'suspend' | 'silence' | 'noop';

export interface DomainBlock {
  domain: string;
  severity: DomainBlockSeverity;
  rejectMedia: boolean;
  rejectReports: boolean;
  createdAt: Date;
}

/**
 * Instance-level domain blocks. A block covers the domain and all its subdomains, as Mastodon's.
 * Read on every inbox request and fetch, so the table is cached in memory and reloaded after
 * `ttlMs` or at once after a change made through this object.
 */
// Remote actors of the domain in $1 or of its subdomains.
const OF_DOMAIN = `domain IS NOT NULL AND (lower(domain) = $1 OR right(lower(domain), length($1) + 1) = '.' || $1)`;

export class DomainBlocks {
  private cache: Map<string, DomainBlock> | undefined;
  private loadedAt = 0;
  private loading: Promise<Map<string, DomainBlock>> | undefined;

  constructor(
    private readonly sequelize: Sequelize,
    private readonly ttlMs = 30_000,
  ) {}

  /**
   * Blocks a domain and its subdomains, or changes its block. `silence` limits the domain's known
   * actors (and new ones, see `silencedAt`): their `silenced_at` is the block's creation time, so
   * lifting the block later unsilences exactly those, not actors a moderator silenced on their own.
   */
  async block(input: {
    domain: string;
    severity: DomainBlockSeverity;
    rejectMedia?: boolean;
    rejectReports?: boolean;
  }) {
    const domain = normalize(input.domain);
    await this.sequelize.transaction(async (transaction) => {
      const [row] = await this.sequelize.query<{ created_at: Date }>(
        `INSERT INTO domain_blocks (domain, severity, reject_media, reject_reports) VALUES ($1, $2, $3, $4)
         ON CONFLICT (domain) DO UPDATE SET severity = EXCLUDED.severity, reject_media = EXCLUDED.reject_media,
           reject_reports = EXCLUDED.reject_reports, updated_at = now()
         RETURNING created_at`,
        {
          bind: [domain, input.severity, input.rejectMedia ?? false, input.rejectReports ?? false],
          type: QueryTypes.SELECT,
          transaction,
        },
      );
      const since = row!.created_at;
      if (input.severity === 'silence') {
        await this.sequelize.query(
          `UPDATE actors SET silenced_at = $2 WHERE silenced_at IS NULL AND ${OF_DOMAIN}`,
          { bind: [domain, since], transaction },
        );
      } else {
        await this.unsilence(domain, since, transaction);
      }
    });
    this.cache = undefined;
  }

  async unblock(domain: string): Promise<void> {
    const host = normalize(domain);
    await this.sequelize.transaction(async (transaction) => {
      const [row] = await this.sequelize.query<{ created_at: Date }>(
        'DELETE FROM domain_blocks WHERE domain = $1 RETURNING created_at',
        { bind: [host], type: QueryTypes.SELECT, transaction },
      );
      if (row) await this.unsilence(host, row.created_at, transaction);
    });
    this.cache = undefined;
  }

  /** When a new remote actor of `host` must start silenced: the silencing block's creation time. */
  async silencedAt(host: string): Promise<Date | null> {
    const block = await this.find(host);
    return block?.severity === 'silence' ? block.createdAt : null;
  }

  private async unsilence(domain: string, since: Date, transaction: Transaction): Promise<void> {
    await this.sequelize.query(
      `UPDATE actors SET silenced_at = NULL WHERE silenced_at = $2 AND ${OF_DOMAIN}`,
      {
        bind: [domain, since],
        transaction,
      },
    );
  }

  /** The block applying to a host (its own or a parent domain's), if any. */
  async find(host: string): Promise<DomainBlock | null> {
    const blocks = await this.load();
    let domain = normalize(host);
    for (;;) {
      const block = blocks.get(domain);
      if (block) return block;
      const dot = domain.indexOf('.');
      if (dot < 0) return null;
      domain = domain.slice(dot + 1);
    }
  }

  async isSuspended(host: string): Promise<boolean> {
    return (await this.find(host))?.severity === 'suspend';
  }

  /** Whether media from this host must not be fetched (suspended, or blocked with reject media). */
  async rejectsMedia(host: string): Promise<boolean> {
    const block = await this.find(host);
    return block !== null && (block.severity === 'suspend' || block.rejectMedia);
  }

  /**
   * A synchronous check on the last loaded list (for the fetch client's per-hop hook); a stale list
   * is reloaded in the background. `load()` runs at start so the first fetches see the blocks.
   */
  isSuspendedCached(host: string): boolean {
    if (!this.cache || Date.now() - this.loadedAt >= this.ttlMs) void this.load().catch(() => undefined);
    if (!this.cache) return false;
    let domain = normalize(host);
    for (;;) {
      if (this.cache.get(domain)?.severity === 'suspend') return true;
      const dot = domain.indexOf('.');
      if (dot < 0) return false;
      domain = domain.slice(dot + 1);
    }
  }

  async load(): Promise<Map<string, DomainBlock>> {
    if (this.cache && Date.now() - this.loadedAt < this.ttlMs) return this.cache;
    this.loading ??= this.sequelize
      .query<DomainBlock>(
        `SELECT domain, severity, reject_media AS "rejectMedia", reject_reports AS "rejectReports",
                created_at AS "createdAt"
           FROM domain_blocks`,
        { type: QueryTypes.SELECT },
      )
      .then((rows) => {
        this.cache = new Map(rows.map((row) => [row.domain, row]));
        this.loadedAt = Date.now();
        return this.cache;
      })
      .finally(() => {
        this.loading = undefined;
      });
    return this.loading;
  }
}

/** Lower case, no port, no trailing dot: `Example.COM.:443` and `example.com` are one domain. */
function normalize(host: string): string {
  return host.toLowerCase().replace(/:\d+$/, '').replace(/\.$/, '');
}
