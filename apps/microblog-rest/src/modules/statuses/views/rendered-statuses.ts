import { randomUUID } from 'node:crypto';
import type { SerializableAccount } from '../../../entities/account.js';
import { serializeFilterResult } from '../../../entities/filter.js';
import { serializeAccount } from '../../../entities/account.js';
import { serializeStatus, type StatusJsonContext } from '../../../entities/status.js';
import type { StatusFilterMatcher } from '../../notifications/filter.service.js';
import type { StatusFacts } from './status-facts.js';
import type { StatusView } from './status.view.js';

/**
 * What one status of a page looks like now: stamps, counters and the viewer's flags (read fresh), all
 * of its facts but whether it has a poll.
 */
export type RenderFacts = Omit<StatusFacts, 'hasPoll'>;

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

interface Cached<V> {
  stamp: string;
  expires: number;
  view: V;
  /** The rendered JSON text cut at its `SLOTS` (ADR 0039, round 2): n slots, n + 1 fragments. */
  text: readonly string[];
}

type CachedStatus = Cached<StatusView>;
type CachedAccount = Cached<SerializableAccount>;

/**
 * Where a page splices what it reads fresh into the cached text: the keys, in the serializer's order,
 * whose values change without moving a render stamp. A status rendered without a viewer ends with
 * `tagged_collections`; the viewer's flags follow it, as `serializeStatus` appends them.
 */
const STATUS_SLOTS = ['account', 'reblogs_count', 'favourites_count', 'replies_count', 'reblog'] as const;
const ACCOUNT_SLOTS = ['followers_count', 'following_count', 'statuses_count', 'last_status_at'] as const;

/** A marker no rendered value can hold (a fresh UUID per process), replaced by each slot's cut. */
const SLOT_MARK = `agora-slot-${randomUUID()}-`;

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
   * The JSON text of the array of `entries` for `viewerId`, in order, byte for byte what
   * `JSON.stringify` gives of the statuses `serializeStatus` renders for the viewer; statuses that
   * could not be rendered (gone meanwhile) are left out, and with a `matcher` those a `hide` filter
   * matches. The cached text is joined with the fresh counters and flags: nothing is serialized again.
   */
  async render(
    entries: readonly RenderEntry[],
    viewerId: string,
    loaders: RenderLoaders,
    context: StatusJsonContext,
    matcher: StatusFilterMatcher | null,
  ): Promise<string> {
    const texts = await this.renderEach(entries, viewerId, loaders, context, matcher);
    return `[${texts.filter((text): text is string => text !== null).join(',')}]`;
  }

  /**
   * The JSON text of each of `entries` for `viewerId` (null: anonymous, no viewer fields), as
   * `render` composes them, or null for an entry left out (gone meanwhile, or hidden by a filter).
   */
  async renderEach(
    entries: readonly RenderEntry[],
    viewerId: string | null,
    loaders: RenderLoaders,
    context: StatusJsonContext,
    matcher: StatusFilterMatcher | null,
  ): Promise<Array<string | null>> {
    const { statuses, accounts } = await this.fill(entries, loaders, context);
    const compose = (facts: RenderFacts, nested: boolean, reblog: string, filtered: string) => {
      const status = statuses.get(facts.id);
      const account = accounts.get(facts.accountId);
      return status && account
        ? statusText(facts, status.text, account.text, viewerId, nested, reblog, filtered)
        : null;
    };
    return entries.map(({ status, reblog }) => {
      const nested = reblog === null ? 'null' : compose(reblog, true, 'null', '[]');
      if (nested === null) return null;
      let filtered = '[]';
      if (matcher !== null && statuses.has(status.id)) {
        const view: StatusView = {
          ...statuses.get(status.id)!.view,
          reblog: reblog === null ? null : statuses.get(reblog.id)!.view,
        };
        const { matches, hidden } = matcher.match(view);
        if (hidden) return null;
        filtered = JSON.stringify(matches.map(serializeFilterResult));
      }
      return compose(status, false, nested, filtered);
    });
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
          const text = cut(serializeStatus(bare, context), STATUS_SLOTS);
          const entry = { stamp: facts.stamp, expires, view: bare, text };
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
          const text = cut(serializeAccount(view, context.publicUrl), ACCOUNT_SLOTS);
          const entry = { stamp, expires, view, text };
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
 * The JSON text of `json` cut at the values of `slots` (top-level keys it has, in its key order):
 * the fragments around them, so that joining them with the slots' values in between gives
 * `JSON.stringify(json)` with those values.
 */
function cut(json: object, slots: readonly string[]): string[] {
  const marked: Record<string, unknown> = { ...json };
  slots.forEach((key, index) => {
    if (!(key in marked)) throw new Error(`rendered entity has no ${key}`);
    marked[key] = `${SLOT_MARK}${index}`;
  });
  const text = JSON.stringify(marked);
  const fragments: string[] = [];
  let from = 0;
  slots.forEach((key, index) => {
    const mark = `"${SLOT_MARK}${index}"`;
    const at = text.indexOf(mark, from);
    if (at < 0) throw new Error(`rendered entity lost its ${key}`);
    fragments.push(text.slice(from, at));
    from = at + mark.length;
  });
  fragments.push(text.slice(from));
  return fragments;
}

/**
 * The status's text as `serializeStatus` writes it for the viewer: the cached fragments with the
 * fresh account counters, status counters, reblog and flags in their places (`muted` is false on a
 * nested reblog; `pinned` is shown on the viewer's own statuses only; `filtered` last).
 */
function statusText(
  facts: RenderFacts,
  status: readonly string[],
  account: readonly string[],
  viewerId: string | null,
  nested: boolean,
  reblog: string,
  filtered: string,
): string {
  const accountText =
    account[0]! +
    jsonNumber(facts.followersCount) +
    account[1]! +
    jsonNumber(facts.followingCount) +
    account[2]! +
    jsonNumber(facts.statusesCount) +
    account[3]! +
    (facts.lastStatusDay === null ? 'null' : JSON.stringify(facts.lastStatusDay)) +
    account[4]!;
  // The status rendered without a viewer ends with `}`: the viewer's fields go before it.
  const tail = status[5]!;
  const head =
    status[0]! +
    accountText +
    status[1]! +
    jsonNumber(facts.reblogsCount) +
    status[2]! +
    jsonNumber(facts.favouritesCount) +
    status[3]! +
    jsonNumber(facts.repliesCount) +
    status[4]! +
    reblog;
  if (viewerId === null) return head + tail;
  return (
    head +
    tail.slice(0, -1) +
    ',"favourited":' +
    String(facts.favourited) +
    ',"reblogged":' +
    String(facts.reblogged) +
    ',"muted":' +
    String(nested ? false : facts.muted) +
    ',"bookmarked":' +
    String(facts.bookmarked) +
    (viewerId === facts.accountId ? ',"pinned":' + String(facts.pinned) : '') +
    ',"filtered":' +
    filtered +
    '}'
  );
}

/** A counter as JSON writes it (a count is a finite integer; anything else is a bug upstream). */
function jsonNumber(value: number): string {
  return JSON.stringify(value);
}

function fresh<V>(entry: Cached<V> | undefined, stamp: string, now: number): entry is Cached<V> {
  return entry !== undefined && entry.stamp === stamp && entry.expires > now;
}

function put<V>(map: Map<string, Cached<V>>, id: string, entry: Cached<V>): void {
  map.delete(id);
  map.set(id, entry);
  if (map.size > MAX_ENTRIES) {
    const oldest = map.keys().next().value;
    if (oldest !== undefined) map.delete(oldest);
  }
}
