import type { HomePageSource } from './views/home-page-token.view.js';
import type { PageRequest } from '../../http/link-pagination.js';

/** A home page as it was answered, and what it was made from (ADR 0049). */
export interface KeptHomePage {
  source: HomePageSource;
  /** The answer's body (JSON text) and its ETag as Express makes it (none when ETags are off). */
  body: Buffer;
  etag: string | undefined;
  /** The page's newest and oldest ids, for the Link header (null: an empty page, no header). */
  cursors: { newest: string; oldest: string } | null;
  expires: number;
}

/** Pages kept per process; the oldest inserted go first. */
const MAX_PAGES = 2_000;
/** At most this much answer text kept per process. */
const MAX_BYTES = 64 * 1024 * 1024;
/**
 * The longest a page is kept: the renderings it was made from may be up to ADR 0039's 10 minutes
 * old, so what no stamp covers (a mentioned remote account's URL) is true again within 11 minutes.
 */
const MAX_AGE_MS = 60_000;

/**
 * Whole home pages kept in this process by user and page request (ADR 0049). A page is only ever
 * answered again after its token, read in one statement, is found unchanged: nothing here is
 * trusted on its own, so what another process (or any writer) committed shows on the next page.
 */
export class HomePageCache {
  private readonly pages = new Map<string, KeptHomePage>();
  private bytes = 0;

  constructor(private readonly now: () => number = () => performance.now()) {}

  /** Kept pages, for tests and figures. */
  get size(): number {
    return this.pages.size;
  }

  /** The page kept for this request, if any and not too old (still to be checked against its token). */
  get(userId: string, page: PageRequest): KeptHomePage | undefined {
    const key = keyOf(userId, page);
    const kept = this.pages.get(key);
    if (kept === undefined) return undefined;
    if (kept.expires <= this.now()) {
      this.drop(key, kept);
      return undefined;
    }
    return kept;
  }

  put(userId: string, page: PageRequest, kept: Omit<KeptHomePage, 'expires'>): void {
    const key = keyOf(userId, page);
    const previous = this.pages.get(key);
    if (previous) this.drop(key, previous);
    this.pages.set(key, { ...kept, expires: this.now() + MAX_AGE_MS });
    this.bytes += kept.body.length;
    for (const [oldKey, old] of this.pages) {
      if (this.pages.size <= MAX_PAGES && this.bytes <= MAX_BYTES) break;
      this.drop(oldKey, old);
    }
  }

  /** Forgets a page found out of date (its replacement, if any, is `put` by the request that found it). */
  forget(userId: string, page: PageRequest, kept: KeptHomePage): void {
    const key = keyOf(userId, page);
    if (this.pages.get(key) === kept) this.drop(key, kept);
  }

  clear(): void {
    this.pages.clear();
    this.bytes = 0;
  }

  private drop(key: string, kept: KeptHomePage): void {
    this.pages.delete(key);
    this.bytes -= kept.body.length;
  }
}

function keyOf(userId: string, page: PageRequest): string {
  return `${userId}|${page.maxId ?? ''}|${page.sinceId ?? ''}|${page.minId ?? ''}|${page.limit}`;
}
