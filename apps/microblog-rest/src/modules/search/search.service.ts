import { BadInput, NotFound, Unauthenticated, type Logger } from '@agora/core';
import { isRowId, preparedStatement } from '@agora/db';
import {
  ACTIVITY_ACCEPT,
  FetchError,
  RemoteActorError,
  type Actor,
  type ActorStore,
  type Federation,
} from '@agora/federation';
import { QueryTypes, type Sequelize } from 'sequelize';
import type { AccountService, AccountView } from '../accounts/account.service.js';
import type { RelationshipService } from '../relationships/index.js';
import type { StatusService } from '../statuses/status.service.js';
import type { TagService, TagView } from '../tags/tag.service.js';

export type SearchType = 'accounts' | 'statuses' | 'hashtags';

export interface SearchQuery {
  q: string;
  type: SearchType | null;
  resolve: boolean;
  following: boolean;
  accountId: string | null;
  excludeUnreviewed: boolean;
  limit: number;
  offset: number;
  maxId: string | null;
  minId: string | null;
}

export interface SearchResults {
  accounts: AccountView[];
  /** Status ids, newest first; the route hydrates them for the viewer. */
  statuses: string[];
  hashtags: TagView[];
}

/**
 * Stores a remote object found by `resolve` (a Note, an Article…) and returns its status id, or null
 * when the resolver does not take that object. The ActivityPub statuses module registers one.
 */
export type ObjectResolver = (object: {
  id: string;
  type: string;
  document: Record<string, unknown>;
}) => Promise<string | null>;

export interface SearchServiceDeps {
  sequelize: Sequelize;
  accounts: AccountService;
  relationships: RelationshipService;
  tags: TagService;
  statuses: Pick<StatusService, 'visibleIds'>;
  actors: ActorStore;
  federation: Federation;
  logger: Logger;
  publicUrl: string;
}

/**
 * The slices of time a status search looks through, newest first: each ends where the previous began
 * and starts this many hours before the upper bound; null: everything older.
 */
const SEARCH_SLICES_HOURS = [1, 6, 24, 7 * 24, 30 * 24, 365 * 24, null] as const;

/**
 * A single plain word in at least this share of statuses (by the planner's statistics of
 * `search_document`) is searched with `COMMON_WORD_SEARCH`; any other term is planned per term.
 */
export const COMMON_WORD_SHARE = 0.01;

/** How long the word statistics are kept in the process (they move only with ANALYZE). */
const WORD_STATISTICS_TTL_MS = 10 * 60_000;

/** What `websearch_to_tsquery('simple', …)` reads as exactly this one lexeme (`or` is its operator). */
const PLAIN_WORD = /^[a-z0-9]{1,100}$/;

const MAX_ROW_ID = 9223372036854775807n;
const MIN_ROW_ID = -9223372036854775808n;

const ACTOR_TYPES = new Set(['Person', 'Service', 'Group', 'Organization', 'Application']);

/** Mastodon's answers when a caller without a user token asks for what needs one (§2.2, 4.0). */
export const SEARCH_ERRORS = {
  resolve: 'Search queries that resolve remote resources are not supported without authentication',
  offset: 'Search queries pagination is not supported without authentication',
};

/**
 * GET /api/v2/search (issue 16 §2; not-shown.md §2.2): accounts by name prefix (the relationships
 * module's account search), statuses by full text (PostgreSQL text search, `simple` configuration,
 * over what the viewer may search: see `statusIds`), hashtags by prefix, and `resolve` of a URL
 * (an account or a status, through the guarded fetch) or of `user@domain` (WebFinger).
 */
export class SearchService {
  private readonly objectResolvers: ObjectResolver[] = [];
  /** The share of statuses holding each of the most common lexemes, as `pg_stats` last said. */
  private wordShares: { loadedAt: number; shares: Map<string, number> } | null = null;
  private loadingWordShares: Promise<void> | null = null;

  constructor(private readonly deps: SearchServiceDeps) {}

  /** Adds a resolver for remote objects that are not actors (see ObjectResolver). */
  addObjectResolver(resolver: ObjectResolver): void {
    this.objectResolvers.push(resolver);
  }

  /** `viewer`: the signed-in caller's user and account, null for a public search. */
  async search(
    viewer: { userId: string; accountId: string } | null,
    query: SearchQuery,
  ): Promise<SearchResults> {
    const viewerId = viewer?.accountId ?? null;
    if (viewerId === null && query.resolve) throw new Unauthenticated(SEARCH_ERRORS.resolve);
    if (viewerId === null && query.offset > 0) throw new Unauthenticated(SEARCH_ERRORS.offset);
    const results: SearchResults = { accounts: [], statuses: [], hashtags: [] };
    // A NUL cannot be sent to PostgreSQL in text; it is no part of anything searchable anyway.
    const q = query.q.replaceAll('\u0000', '').trim();
    if (q === '') return results;
    const wants = (type: SearchType) => query.type === null || query.type === type;

    if (/^https?:\/\//i.test(q)) {
      // A URL names one thing: an account or a status, known here or fetched when `resolve` is set.
      if (query.offset > 0) return results;
      const found = await this.byUrl(q, viewerId, query.resolve);
      if (found?.kind === 'account' && wants('accounts')) results.accounts = [found.account];
      if (found?.kind === 'status' && wants('statuses')) results.statuses = [found.id];
      return results;
    }

    if (wants('accounts')) {
      results.accounts = await this.accounts(viewer?.userId ?? null, q, query);
    }
    if (wants('statuses') && viewerId !== null) {
      results.statuses = await this.statusIds(viewerId, q, query);
    }
    if (wants('hashtags')) {
      results.hashtags = await this.deps.tags.search(q, viewerId, query.limit, query.offset);
    }
    return results;
  }

  /**
   * Statuses whose content warning or text matches `term` (`websearch_to_tsquery`: words, "quoted
   * phrases", `or`, `-word`; any other character is only text) among those the viewer may search,
   * Mastodon's rule since 4.2: the viewer's own statuses, and those the viewer was mentioned in,
   * favourited, bookmarked or reblogged, whatever their visibility; and public statuses of accounts
   * that opted in to search (`indexable`). Newest first; `account_id` narrows to one author.
   */
  async statusIds(
    viewerId: string,
    term: string,
    query: Pick<SearchQuery, 'accountId' | 'limit' | 'offset' | 'maxId' | 'minId'>,
  ): Promise<string[]> {
    if (query.accountId !== null && !isRowId(query.accountId)) return [];
    const maxId = query.maxId !== null && isRowId(query.maxId) ? query.maxId : null;
    const minId = query.minId !== null && isRowId(query.minId) ? query.minId : null;
    const wanted = query.offset + query.limit;
    // Newest first, through slices of time below the upper bound that widen and do not overlap (ids
    // are time-sortable, ADR 0019): a common word's newest matches are found in the first slice
    // without sorting all of its matches; a rare word costs a few cheap index lookups more (ADR 0035,
    // ADR 0044).
    const upperMs = maxId === null ? Date.now() : Number(BigInt(maxId) >> 16n);
    // A common word without an author filter: one plan shape, prepared once per connection (ADR 0052).
    const common = query.accountId === null && (await this.isCommonWord(term));
    const found: string[] = [];
    let below = maxId;
    for (const hours of SEARCH_SLICES_HOURS) {
      const lower =
        hours === null ? null : (BigInt(Math.max(upperMs - hours * 3_600_000, 0)) << 16n).toString();
      const last = lower === null || (minId !== null && BigInt(lower) <= BigInt(minId));
      const bind: unknown[] = [viewerId, term, query.accountId, wanted - found.length];
      let bounds = '';
      for (const [operator, value] of [
        ['<', below],
        ['>', minId],
        ['>=', last ? null : lower],
      ] as const) {
        if (value === null) continue;
        bind.push(value);
        bounds += ` AND s.id ${operator} $${bind.length}::bigint`;
      }
      const rows = common
        ? await COMMON_WORD_SEARCH.rows(this.deps.sequelize, [
            viewerId,
            term,
            wanted - found.length,
            floorOf(minId, last ? null : lower),
            below === null ? MAX_ROW_ID.toString() : (BigInt(below) - 1n).toString(),
          ])
        : await this.deps.sequelize.query<{ id: string }>(
            `${STATUS_SEARCH_SQL}${bounds} ORDER BY s.id DESC LIMIT $4`,
            { bind, type: QueryTypes.SELECT },
          );
      for (const row of rows) found.push(row.id);
      if (last || found.length >= wanted) break;
      below = lower;
    }
    return found.slice(query.offset, wanted);
  }

  /**
   * Whether `term` is one plain word that the planner's statistics put in at least
   * `COMMON_WORD_SHARE` of statuses. Only the plan depends on it, never the results: a misjudged
   * word is answered by the other plan, as exactly.
   */
  async isCommonWord(term: string): Promise<boolean> {
    const word = term.toLowerCase();
    if (!PLAIN_WORD.test(word) || word === 'or') return false;
    if (this.wordShares === null) await this.loadWordShares();
    else if (Date.now() - this.wordShares.loadedAt > WORD_STATISTICS_TTL_MS) void this.loadWordShares();
    return (this.wordShares?.shares.get(word) ?? 0) >= COMMON_WORD_SHARE;
  }

  /** Reads the most common lexemes of `statuses.search_document` and their shares from `pg_stats`. */
  loadWordShares(): Promise<void> {
    this.loadingWordShares ??= (async () => {
      const shares = new Map<string, number>();
      try {
        const [row] = await this.deps.sequelize.query<{ elems: string[] | null; freqs: number[] | null }>(
          `SELECT most_common_elems::text::text[] AS elems, most_common_elem_freqs AS freqs FROM pg_stats
            WHERE schemaname = current_schema() AND tablename = 'statuses' AND attname = 'search_document'`,
          { type: QueryTypes.SELECT },
        );
        // The last three of `freqs` are the minimum, the maximum and the share of empty documents.
        row?.elems?.forEach((word, index) => shares.set(word, row.freqs?.[index] ?? 0));
      } catch (error) {
        this.deps.logger.warn({ err: error }, 'search: word statistics could not be read');
      }
      this.wordShares = { loadedAt: Date.now(), shares };
    })().finally(() => {
      this.loadingWordShares = null;
    });
    return this.loadingWordShares;
  }

  private async accounts(userId: string | null, q: string, query: SearchQuery): Promise<AccountView[]> {
    return this.deps.relationships.search(userId, {
      q,
      limit: query.limit,
      offset: query.offset,
      resolve: query.resolve,
      following: query.following,
    });
  }

  /**
   * The account or status a URL names: one we know by its id (`uri`) or its page (`url`), else, with
   * `resolve`, the document the guarded fetch gets from it (private addresses, oversized and slow
   * answers refused there): an actor is stored by the federation package, another object by the
   * registered object resolvers. A URL that cannot be fetched finds nothing (as the reference).
   */
  private async byUrl(
    url: string,
    viewerId: string | null,
    resolve: boolean,
  ): Promise<{ kind: 'account'; account: AccountView } | { kind: 'status'; id: string } | null> {
    const known = await this.knownByUrl(url, viewerId);
    // Our own URLs are never fetched: what we do not know of ours does not exist.
    if (known || !resolve || this.isOurs(url)) return known;
    let document: Record<string, unknown>;
    let answeredUrl: string;
    try {
      const response = await this.deps.federation.fetch.get(url, { headers: { accept: ACTIVITY_ACCEPT } });
      if (!response.ok) return null;
      const body = response.json();
      if (typeof body !== 'object' || body === null || Array.isArray(body)) return null;
      document = body as Record<string, unknown>;
      answeredUrl = response.url;
    } catch (error) {
      if (error instanceof FetchError) {
        this.deps.logger.info({ url, reason: error.code }, 'search: a URL to resolve could not be fetched');
        return null;
      }
      throw error;
    }
    const id = typeof document.id === 'string' ? document.id : null;
    const type = typeof document.type === 'string' ? document.type : null;
    if (id === null || type === null || !/^https?:\/\//i.test(id)) return null;
    if (ACTOR_TYPES.has(type)) {
      try {
        // Fetched again from its own id, so a page cannot pass off another host's actor.
        const actor = await this.deps.federation.remoteActors.resolve(id);
        const views = await this.visibleAccounts(viewerId, [actor.id]);
        return views[0] ? { kind: 'account', account: views[0] } : null;
      } catch (error) {
        if (error instanceof RemoteActorError || error instanceof FetchError) return null;
        if (error instanceof NotFound || error instanceof BadInput) return null;
        throw error;
      }
    }
    // An object is taken as it was served only from its own origin (CVE-2024-23832).
    if (new URL(id).origin !== new URL(answeredUrl).origin) return null;
    for (const resolver of this.objectResolvers) {
      const statusId = await resolver({ id, type, document });
      if (statusId !== null)
        return (await this.knownStatus(statusId, viewerId)) ? { kind: 'status', id: statusId } : null;
    }
    return null;
  }

  private async knownByUrl(
    url: string,
    viewerId: string | null,
  ): Promise<{ kind: 'account'; account: AccountView } | { kind: 'status'; id: string } | null> {
    const [status] = await this.deps.sequelize.query<{ id: string }>(
      `SELECT id FROM (
         SELECT s.id::text AS id FROM statuses s WHERE s.uri = $1 AND s.deleted_at IS NULL AND s.reblog_of_id IS NULL
         UNION ALL
         SELECT s.id::text FROM statuses s WHERE s.url = $1 AND s.deleted_at IS NULL AND s.reblog_of_id IS NULL
       ) found LIMIT 1`,
      { bind: [url], type: QueryTypes.SELECT },
    );
    if (status)
      return (await this.knownStatus(status.id, viewerId)) ? { kind: 'status', id: status.id } : null;
    // An account by its id (`uri`, indexed), or a local one by its profile page (`/@name`).
    const page = this.localProfileName(url);
    const actor =
      page !== null
        ? await this.deps.actors.findByUsername(page, null)
        : await this.deps.actors.findByUri(url);
    if (!actor || (actor.local && !['Person', 'Service'].includes(actor.type))) return null;
    const views = await this.visibleAccounts(viewerId, [actor.id]);
    return views[0] ? { kind: 'account', account: views[0] } : null;
  }

  private isOurs(url: string): boolean {
    return URL.canParse(url) && new URL(url).origin === new URL(this.deps.publicUrl).origin;
  }

  /** `name` of `<our origin>/@name`, else null. */
  private localProfileName(url: string): string | null {
    if (!this.isOurs(url)) return null;
    const parsed = new URL(url);
    const match = /^\/@([A-Za-z0-9_]+)\/?$/.exec(parsed.pathname);
    return match?.[1] ?? null;
  }

  /** Whether the viewer may see the status (its hydration applies the same rule again). */
  private async knownStatus(id: string, viewerId: string | null): Promise<boolean> {
    return (await this.deps.statuses.visibleIds([id], viewerId)).length === 1;
  }

  /** Accounts by id, without suspended ones and those the viewer blocks or is blocked by. */
  private async visibleAccounts(viewerId: string | null, ids: string[]): Promise<AccountView[]> {
    const found = await this.deps.actors.findByIds(ids);
    const shown: Actor[] = [];
    for (const actor of ids.map((id) => found.get(id))) {
      if (!actor || actor.suspended) continue;
      if (viewerId !== null && (await this.deps.relationships.blocksEither(viewerId, actor))) continue;
      shown.push(actor);
    }
    return this.deps.accounts.views(shown);
  }
}

/** The lowest id a slice may return: above `minId` (exclusive) and from `lower` (inclusive). */
function floorOf(minId: string | null, lower: string | null): string {
  let floor = MIN_ROW_ID;
  if (minId !== null && BigInt(minId) + 1n > floor) floor = BigInt(minId) + 1n;
  if (lower !== null && BigInt(lower) > floor) floor = BigInt(lower);
  return floor.toString();
}

/** The visibility rule of a status search (`s` the status, `a` its author, `$1` the viewer): see `statusIds`. */
const SEARCHABLE = `(s.account_id = $1
      OR (s.visibility = 'public' AND a.indexable)
      OR EXISTS (SELECT 1 FROM mentions m WHERE m.status_id = s.id AND m.account_id = $1)
      OR EXISTS (SELECT 1 FROM favourites f WHERE f.account_id = $1 AND f.status_id = s.id)
      OR EXISTS (SELECT 1 FROM bookmarks b WHERE b.account_id = $1 AND b.status_id = s.id)
      OR EXISTS (SELECT 1 FROM statuses r WHERE r.account_id = $1 AND r.reblog_of_id = s.id AND r.deleted_at IS NULL))
    AND NOT EXISTS (SELECT 1 FROM blocks bl WHERE (bl.account_id = $1 AND bl.target_account_id = s.account_id)
                                            OR (bl.account_id = s.account_id AND bl.target_account_id = $1))
    AND NOT EXISTS (SELECT 1 FROM mutes mu WHERE mu.account_id = $1 AND mu.target_account_id = s.account_id
                                           AND (mu.expires_at IS NULL OR mu.expires_at > now()))`;

/**
 * The status full-text query ($1 viewer, $2 the terms, $3 an optional author) over the stored
 * `search_document` (ADR 0044): for a rare word the GIN index `statuses_search_idx` answers the match
 * (same partial predicate); for a common one the planner reads the primary key backwards within the
 * slice and stops at the limit. The visibility rule is checked on the matching rows, the author's
 * `indexable` by its primary key. Planned per term (unnamed); EXPLAIN in search.test.ts and ADR 0044.
 */
export const STATUS_SEARCH_SQL = `SELECT s.id::text AS id FROM statuses s JOIN actors a ON a.id = s.account_id
  WHERE s.search_document @@ websearch_to_tsquery('simple', $2)
    AND s.deleted_at IS NULL AND s.reblog_of_id IS NULL
    AND ($3::bigint IS NULL OR s.account_id = $3::bigint)
    AND ${SEARCHABLE}`;

/**
 * The same query for a word the statistics call common (ADR 0052): $1 viewer, $2 the word, $3 the
 * limit, ids from $4 to $5 inclusive, newest first. The plan is always the primary key read
 * backwards with the match as a filter (`IS TRUE` keeps the GIN index out), and the term and bounds
 * are read through InitPlans, so no estimate depends on them: PostgreSQL plans it once per
 * connection (its generic plan from the sixth execution) instead of 0.5–0.7 ms per request.
 */
const COMMON_WORD_SEARCH = preparedStatement<{ id: string }, [string, string, number, string, string]>({
  name: 'microblog_status_search_common_word',
  text: `SELECT s.id::text AS id FROM statuses s JOIN actors a ON a.id = s.account_id
  WHERE (s.search_document @@ (SELECT websearch_to_tsquery('simple', $2::text))) IS TRUE
    AND s.deleted_at IS NULL AND s.reblog_of_id IS NULL
    AND s.id >= (SELECT $4::bigint) AND s.id <= (SELECT $5::bigint)
    AND ${SEARCHABLE}
  ORDER BY s.id DESC LIMIT $3`,
});
