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

type CachedStatus = Cached<StatusView, StatusJson>;
type CachedAccount = Cached<SerializableAccount, AccountJson>;

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
  private readonly statuses = new Map<string, CachedStatus>();
  private readonly accounts = new Map<string, CachedAccount>();
  /** Renderings being made, by `id@stamp`: concurrent pages share them. */
  private readonly statusFlights = new Map<string, Promise<CachedStatus | undefined>>();
  private readonly accountFlights = new Map<string, Promise<CachedAccount | undefined>>();

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
    const { statuses, accounts } = await this.fill(entries, loaders, context);
    const compose = (facts: RenderFacts, nested: boolean, reblog: StatusJson | null = null) => {
      const status = statuses.get(facts.id);
      const account = accounts.get(facts.accountId);
      return status && account ? merge(facts, status.json, account.json, viewerId, nested, reblog) : null;
    };
    const out: StatusJson[] = [];
    for (const { status, reblog } of entries) {
      const nested = reblog === null ? null : compose(reblog, true);
      if (reblog !== null && nested === null) continue;
      const json = compose(status, false, nested);
      if (json === null) continue;
      if (matcher !== null) {
        const view: StatusView = {
          ...statuses.get(status.id)!.view,
          reblog: reblog === null ? null : statuses.get(reblog.id)!.view,
        };
        const { matches, hidden } = matcher.match(view);
        if (hidden) continue;
        json.filtered = matches.map(serializeFilterResult);
      }
      out.push(json);
    }
    return out;
  }

  /**
   * The renderings this page uses, each true at the stamp the page read: cached ones, else rendered
   * in two batched reads at most (statuses, accounts); a rendering another request is already
   * making for the same stamp is awaited, not made twice.
   */
  private async fill(
    entries: readonly RenderEntry[],
    loaders: RenderLoaders,
    context: StatusJsonContext,
  ): Promise<{ statuses: Map<string, CachedStatus>; accounts: Map<string, CachedAccount> }> {
    const now = this.now();
    const statuses = new Map<string, CachedStatus>();
    const accounts = new Map<string, CachedAccount>();
    const pending: Array<Promise<void>> = [];
    const loadStatuses = new Map<string, RenderFacts>();
    const loadAccounts = new Map<string, string>();
    for (const { status, reblog } of entries) {
      for (const facts of reblog === null ? [status] : [status, reblog]) {
        if (statuses.has(facts.id) || loadStatuses.has(facts.id)) continue;
        const cached = this.statuses.get(facts.id);
        if (fresh(cached, facts.stamp, now)) statuses.set(facts.id, cached);
        else {
          const flight = this.statusFlights.get(`${facts.id}@${facts.stamp}`);
          if (flight) pending.push(flight.then((entry) => void (entry && statuses.set(facts.id, entry))));
          else loadStatuses.set(facts.id, facts);
        }
        if (accounts.has(facts.accountId) || loadAccounts.has(facts.accountId)) continue;
        const account = this.accounts.get(facts.accountId);
        if (fresh(account, facts.accountStamp, now)) accounts.set(facts.accountId, account);
        else {
          const flight = this.accountFlights.get(`${facts.accountId}@${facts.accountStamp}`);
          if (flight) {
            pending.push(flight.then((entry) => void (entry && accounts.set(facts.accountId, entry))));
          } else {
            loadAccounts.set(facts.accountId, facts.accountStamp);
          }
        }
      }
    }
    const expires = now + MAX_AGE_MS;
    // Stored under the stamps read before the load: a write after that read only makes the next
    // page render again, never keeps an old rendering under a new stamp.
    if (loadStatuses.size > 0) {
      const loaded = loaders.statuses([...loadStatuses.keys()]);
      for (const facts of loadStatuses.values()) {
        const flight = loaded.then((views) => {
          const view = views.get(facts.id);
          if (!view) return undefined;
          const bare: StatusView = { ...view, reblog: null, viewer: null, viewerId: null };
          const entry = { stamp: facts.stamp, expires, view: bare, json: serializeStatus(bare, context) };
          put(this.statuses, facts.id, entry);
          return entry;
        });
        pending.push(this.fly(this.statusFlights, `${facts.id}@${facts.stamp}`, flight, statuses, facts.id));
      }
    }
    if (loadAccounts.size > 0) {
      // The statuses just loaded carry their accounts: only the others are read.
      const carried = new Set([...loadStatuses.values()].map((facts) => facts.accountId));
      const others = [...loadAccounts.keys()].filter((id) => !carried.has(id));
      const loaded = Promise.all([
        others.length > 0 ? loaders.accounts(others) : new Map<string, SerializableAccount>(),
        Promise.all(
          [...loadStatuses.values()].map((facts) => this.statusFlights.get(`${facts.id}@${facts.stamp}`)),
        ),
      ]);
      for (const [id, stamp] of loadAccounts) {
        const flight = loaded.then(async ([views, carriedStatuses]) => {
          const view =
            views.get(id) ??
            carriedStatuses.find((entry) => entry?.view.account.actor.id === id)?.view.account ??
            // Its status went meanwhile: read the account itself for the page's other statuses.
            (await loaders.accounts([id])).get(id);
          if (!view) return undefined;
          const entry = { stamp, expires, view, json: serializeAccount(view, context.publicUrl) };
          put(this.accounts, id, entry);
          return entry;
        });
        pending.push(this.fly(this.accountFlights, `${id}@${stamp}`, flight, accounts, id));
      }
    }
    await Promise.all(pending);
    return { statuses, accounts };
  }

  /** Registers a rendering in flight until it settles, and records its result for this page. */
  private fly<E>(
    flights: Map<string, Promise<E | undefined>>,
    key: string,
    flight: Promise<E | undefined>,
    into: Map<string, E>,
    id: string,
  ): Promise<void> {
    flights.set(key, flight);
    const done = () => {
      if (flights.get(key) === flight) flights.delete(key);
    };
    return flight.then(
      (entry) => {
        done();
        if (entry) into.set(id, entry);
      },
      (error: unknown) => {
        done();
        throw error;
      },
    );
  }
}

/**
 * The entity as `serializeStatus` writes it for the viewer: the cached rendering with the fresh
 * counters, account and flags in their places (`muted` is false on a nested reblog; `pinned` is
 * shown on the viewer's own statuses only).
 */
function merge(
  facts: RenderFacts,
  status: StatusJson,
  account: AccountJson,
  viewerId: string,
  nested: boolean,
  reblog: StatusJson | null,
): StatusJson {
  const json: StatusJson = {
    ...status,
    account: {
      ...account,
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
