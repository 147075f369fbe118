import type { SerializableAccount, AccountJson } from '../../../entities/account.js';
import { serializeFilterResult } from '../../../entities/filter.js';
import { serializeAccount } from '../../../entities/account.js';
import { serializeStatus, type StatusJson, type StatusJsonContext } from '../../../entities/status.js';
import type { StatusFilterMatcher } from '../../notifications/filter.service.js';
import type { StatusView } from './status.view.js';

/** What one status of a page looks like now: stamps, counters and the viewer's flags (read fresh). */
export interface RenderFacts {
  id: string;
  stamp: string;
  repliesCount: number;
  reblogsCount: number;
  favouritesCount: number;
  accountId: string;
  accountStamp: string;
  followersCount: number;
  followingCount: number;
  statusesCount: number;
  lastStatusDay: string | null;
  favourited: boolean;
  reblogged: boolean;
  bookmarked: boolean;
  muted: boolean;
  pinned: boolean;
}

/** A status of a page and, for a reblog, its original. */
export interface RenderEntry {
  status: RenderFacts;
  reblog: RenderFacts | null;
}

/** How the cache fills its misses: the statuses view (without a viewer) and the accounts view. */
export interface RenderLoaders {
  statuses(ids: readonly string[]): Promise<Map<string, StatusView>>;
  accounts(ids: readonly string[]): Promise<Map<string, SerializableAccount>>;
}

interface Cached<V, J> {
  stamp: string;
  expires: number;
  view: V;
  json: J;
}

/** Entries kept per kind; the oldest inserted go first. */
const MAX_ENTRIES = 20_000;
/**
 * The longest an entry is trusted without being rendered again: what a stamp does not cover (the
 * URL of a mentioned remote account that moved) is true again after this.
 */
const MAX_AGE_MS = 10 * 60_000;

/**
 * Rendered statuses and accounts kept in this process, each under the render stamp it was rendered
 * at (ADR 0039). A page reads the stamps, counters and viewer flags fresh in its one statement; an
 * entry whose stamp still matches is reused and only those are merged in, so nothing is serialized
 * twice and no process can serve what the database has since changed.
 */
export class RenderedStatuses {
  private readonly statuses = new Map<string, Cached<StatusView, StatusJson>>();
  private readonly accounts = new Map<string, Cached<SerializableAccount, AccountJson>>();

  constructor(private readonly now: () => number = () => performance.now()) {}

  /** Cached entries, for tests and figures. */
  get size(): { statuses: number; accounts: number } {
    return { statuses: this.statuses.size, accounts: this.accounts.size };
  }

  /**
   * The JSON of `entries` for `viewerId`, in order; statuses that could not be rendered (gone
   * meanwhile) are left out, and with a `matcher` those a `hide` filter matches.
   */
  async render(
    entries: readonly RenderEntry[],
    viewerId: string,
    loaders: RenderLoaders,
    context: StatusJsonContext,
    matcher: StatusFilterMatcher | null,
  ): Promise<StatusJson[]> {
    await this.fill(entries, loaders, context);
    const out: StatusJson[] = [];
    for (const { status, reblog } of entries) {
      const own = this.statuses.get(status.id);
      const original = reblog === null ? null : this.statuses.get(reblog.id);
      if (!own || (reblog !== null && !original)) continue;
      const nested = reblog === null ? null : this.compose(reblog, original!, viewerId, true);
      if (reblog !== null && nested === null) continue;
      const json = this.compose(status, own, viewerId, false, nested);
      if (json === null) continue;
      if (matcher !== null) {
        const view: StatusView = { ...own.view, reblog: original?.view ?? null };
        const { matches, hidden } = matcher.match(view);
        if (hidden) continue;
        json.filtered = matches.map(serializeFilterResult);
      }
      out.push(json);
    }
    return out;
  }

  /** Renders what is missing or stale, in two batched reads at most (statuses, accounts). */
  private async fill(
    entries: readonly RenderEntry[],
    loaders: RenderLoaders,
    context: StatusJsonContext,
  ): Promise<void> {
    const now = this.now();
    const wanted = new Map<string, RenderFacts>();
    for (const { status, reblog } of entries) {
      wanted.set(status.id, status);
      if (reblog) wanted.set(reblog.id, reblog);
    }
    const staleStatuses: RenderFacts[] = [];
    const staleAccounts = new Map<string, string>();
    for (const facts of wanted.values()) {
      if (!fresh(this.statuses.get(facts.id), facts.stamp, now)) staleStatuses.push(facts);
      else if (!fresh(this.accounts.get(facts.accountId), facts.accountStamp, now)) {
        staleAccounts.set(facts.accountId, facts.accountStamp);
      }
    }
    if (staleStatuses.length === 0 && staleAccounts.size === 0) return;
    const [views, accounts] = await Promise.all([
      staleStatuses.length === 0 ? null : loaders.statuses(staleStatuses.map((facts) => facts.id)),
      staleAccounts.size === 0 ? null : loaders.accounts([...staleAccounts.keys()]),
    ]);
    const expires = now + MAX_AGE_MS;
    // Stored under the stamps read before the load: a write after that read only makes the next
    // page render again, never keeps an old rendering under a new stamp.
    for (const facts of staleStatuses) {
      const view = views?.get(facts.id);
      if (!view) {
        this.statuses.delete(facts.id);
        continue;
      }
      const bare: StatusView = { ...view, reblog: null, viewer: null, viewerId: null };
      put(this.statuses, facts.id, {
        stamp: facts.stamp,
        expires,
        view: bare,
        json: serializeStatus(bare, context),
      });
      const accountStamp = wanted.get(facts.id)!.accountStamp;
      if (!fresh(this.accounts.get(facts.accountId), accountStamp, now)) {
        staleAccounts.delete(facts.accountId);
        this.putAccount(facts.accountId, accountStamp, expires, view.account, context);
      }
    }
    for (const [id, stamp] of staleAccounts) {
      const account = accounts?.get(id);
      if (account) this.putAccount(id, stamp, expires, account, context);
      else this.accounts.delete(id);
    }
  }

  private putAccount(
    id: string,
    stamp: string,
    expires: number,
    view: SerializableAccount,
    context: StatusJsonContext,
  ): void {
    put(this.accounts, id, { stamp, expires, view, json: serializeAccount(view, context.publicUrl) });
  }

  /**
   * The entity as `serializeStatus` writes it for the viewer: the cached rendering with the fresh
   * counters, account and flags in their places (`muted` is false on a nested reblog; `pinned` is
   * shown on the viewer's own statuses only).
   */
  private compose(
    facts: RenderFacts,
    cached: Cached<StatusView, StatusJson>,
    viewerId: string,
    nested: boolean,
    reblog: StatusJson | null = null,
  ): StatusJson | null {
    const account = this.accounts.get(facts.accountId);
    if (!account) return null;
    const json: StatusJson = {
      ...cached.json,
      account: {
        ...account.json,
        followers_count: facts.followersCount,
        following_count: facts.followingCount,
        statuses_count: facts.statusesCount,
        last_status_at: facts.lastStatusDay,
      },
      reblogs_count: facts.reblogsCount,
      favourites_count: facts.favouritesCount,
      replies_count: facts.repliesCount,
      reblog,
    };
    json.favourited = facts.favourited;
    json.reblogged = facts.reblogged;
    json.muted = nested ? false : facts.muted;
    json.bookmarked = facts.bookmarked;
    if (viewerId === facts.accountId) json.pinned = facts.pinned;
    json.filtered = [];
    return json;
  }
}

function fresh<V, J>(entry: Cached<V, J> | undefined, stamp: string, now: number): entry is Cached<V, J> {
  return entry !== undefined && entry.stamp === stamp && entry.expires > now;
}

function put<V, J>(map: Map<string, Cached<V, J>>, id: string, entry: Cached<V, J>): void {
  map.delete(id);
  map.set(id, entry);
  if (map.size > MAX_ENTRIES) {
    const oldest = map.keys().next().value;
    if (oldest !== undefined) map.delete(oldest);
  }
}
