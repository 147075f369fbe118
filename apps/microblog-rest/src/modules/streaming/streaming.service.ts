import { scopesAllow, type Scope } from '@agora/auth';
import { NotFound, type Logger, type PubSub, type Unsubscribe } from '@agora/core';
import { isRowId } from '@agora/db';
import type { Sequelize, Transaction } from 'sequelize';
import { serializeAccount } from '../../entities/account.js';
import { serializeConversation } from '../../entities/conversation.js';
import { serializeFilterResult } from '../../entities/filter.js';
import { serializeNotification } from '../../entities/notification.js';
import { serializeStatus, type StatusJsonContext } from '../../entities/status.js';
import type { ConversationService } from '../conversations/conversation.service.js';
import type { ListService } from '../lists/list.service.js';
import type { FilterContext, FilterService, StatusFilterMatcher } from '../notifications/filter.service.js';
import type { NotificationService } from '../notifications/notification.service.js';
import {
  loadNotificationViews,
  type NotificationViewDeps,
} from '../notifications/views/notification.view.js';
import type { StatusListener, StatusService } from '../statuses/status.service.js';
import { loadAccounts } from '../statuses/views/accounts.view.js';
import type { StatusView } from '../statuses/views/status.view.js';
import {
  STREAM_MESSAGES,
  StreamRefusal,
  streamKey,
  streamScopes,
  type Stream,
  type StreamEvent,
} from './streams.js';
import {
  deleteAudience,
  excludedViewers,
  homeAudience,
  listAudience,
  statusFacts,
  type StatusFacts,
} from './views/audience.view.js';
import { liveTokenIds } from './views/tokens.view.js';

/** The one pub/sub channel of streaming events: every web process listens, each serves its own sockets. */
export const STREAMING_CHANNEL = 'microblog:streaming';
/** Open streams (sockets and SSE) one access token may hold in one process. */
export const DEFAULT_MAX_CONNECTIONS_PER_TOKEN = 50;
/** Streams one socket may subscribe to. */
export const MAX_SUBSCRIPTIONS_PER_CONNECTION = 100;
/** How long a viewer's filters are reused before they are read again (a change clears them at once). */
const MATCHER_TTL_MS = 30_000;
/** Viewers rendered at once for one event (each costs a fixed number of queries). */
const RENDER_CONCURRENCY = 8;

/**
 * What crosses processes: ids only (NOTIFY carries < 8000 bytes), each process loads and renders
 * for its own viewers.
 */
export type StreamingMessage =
  | { e: 'update' | 'status.update'; s: string }
  | { e: 'delete'; s: string; a: string }
  | { e: 'notification'; n: string; a: string }
  | { e: 'filters_changed'; a: string };

/** Who holds a stream open: the account of a user token, with the token's scopes. */
export interface StreamViewer {
  accountId: string;
  tokenId: string;
  scopes: readonly Scope[];
}

/** Where a connection's frames go (a WebSocket, an SSE response). */
export interface StreamSink {
  send(label: readonly string[], event: StreamEvent, payload: string | null): void;
  /** Ends the connection (the server stops). */
  end(): void;
}

export interface StreamingServiceDeps {
  sequelize: Sequelize;
  pubsub: PubSub;
  logger: Logger;
  statuses: StatusService;
  filters: FilterService;
  lists: ListService;
  notifications: NotificationService;
  conversations: ConversationService;
  notificationViews: NotificationViewDeps;
  accountViews: Parameters<typeof loadAccounts>[0];
  json: StatusJsonContext;
  maxConnectionsPerToken?: number;
}

interface Subscription {
  connection: Connection;
  stream: Stream;
}

/** One open socket or SSE response, and the streams it subscribed to. */
export class Connection {
  readonly subscriptions = new Map<string, Subscription>();
  closed = false;

  constructor(
    private readonly hub: StreamingService,
    readonly viewer: StreamViewer,
    readonly sink: StreamSink,
  ) {}

  /** Subscribes (again is a no-op). Errors: StreamRefusal (scopes 401, another's list 401, too many 400). */
  subscribe(stream: Stream): Promise<void> {
    return this.hub.subscribe(this, stream);
  }

  unsubscribe(stream: Stream): void {
    this.hub.unsubscribe(this, stream);
  }

  /** The client went: its subscriptions end and its token may open another stream. */
  close(): void {
    this.hub.release(this);
  }
}

/**
 * The streaming API's hub in one process (issue 16 §1; not-shown.md §2.6). Writers publish ids on
 * the pg pub/sub (`statusListener`, `notificationsCreated`, `filtersChanged`); every process hears
 * them and works out which of its own subscriptions receive each event, in a fixed number of queries
 * per event (the audience), then renders per viewer (their filters, their flags) and writes frames.
 * Events are handled one at a time, in the order heard, so a `delete` never overtakes its `update`.
 */
export class StreamingService {
  private readonly users = new Map<string, Set<Subscription>>();
  private readonly directs = new Map<string, Set<Subscription>>();
  private readonly lists = new Map<string, Set<Subscription>>();
  private readonly tags = new Map<string, Set<Subscription>>();
  private readonly publics = new Set<Subscription>();
  private readonly connections = new Set<Connection>();
  private readonly perToken = new Map<string, number>();
  private readonly matchers = new Map<string, { at: number; matcher: Promise<StatusFilterMatcher> }>();
  private listening: Promise<Unsubscribe> | null = null;
  private queue: Promise<void> = Promise.resolve();
  private stopped = false;
  readonly maxConnectionsPerToken: number;
  /** How often an SSE stream sends its `:thump` comment (the reference: every 15 s). */
  heartbeatMs = 15_000;
  /** How often the tokens of open streams are checked: a revoked token's streams end. */
  readonly tokenCheckMs: number = 60_000;
  private tokenCheck: NodeJS.Timeout | undefined;

  constructor(private readonly deps: StreamingServiceDeps) {
    this.maxConnectionsPerToken = deps.maxConnectionsPerToken ?? DEFAULT_MAX_CONNECTIONS_PER_TOKEN;
  }

  // ---- writers: what the statuses, notifications and filters modules tell ----

  /** New statuses and reblogs (after the fan-out wrote the feeds), edits and deletions. */
  statusListener(): StatusListener {
    return {
      distributed: (statusId) => this.publish({ e: 'update', s: statusId }),
      edited: (statusId) => this.publish({ e: 'status.update', s: statusId }),
      removed: (statusId, accountId) => this.publish({ e: 'delete', s: statusId, a: accountId }),
    };
  }

  /** Notifications just made (told after their transaction commits, so every process finds them). */
  async notificationsCreated(
    rows: ReadonlyArray<{ id: string; accountId: string }>,
    transaction?: Transaction,
  ): Promise<void> {
    const send = async () => {
      for (const row of rows) await this.publish({ e: 'notification', n: row.id, a: row.accountId });
    };
    if (transaction) transaction.afterCommit(send);
    else await send();
  }

  /** An account's filters changed: its clients re-read them (`filters_changed` on the user stream). */
  async filtersChanged(accountId: string): Promise<void> {
    await this.publish({ e: 'filters_changed', a: accountId });
  }

  /** Never fails the writer: a lost event costs a live view, not the write. */
  async publish(message: StreamingMessage): Promise<void> {
    try {
      await this.deps.pubsub.publish(STREAMING_CHANNEL, message);
    } catch (error) {
      this.deps.logger.warn({ err: error, event: message.e }, 'could not publish a streaming event');
    }
  }

  // ---- connections ----

  /** A new stream of `viewer`. Errors: StreamRefusal 429 past the per-token cap. */
  open(viewer: StreamViewer, sink: StreamSink): Connection {
    this.assertCanOpen(viewer.tokenId);
    this.perToken.set(viewer.tokenId, (this.perToken.get(viewer.tokenId) ?? 0) + 1);
    this.tokenCheck ??= setInterval(() => {
      this.endRevoked().catch((error: unknown) => {
        this.deps.logger.warn({ err: error }, 'could not check the tokens of open streams');
      });
    }, this.tokenCheckMs).unref();
    const connection = new Connection(this, viewer, sink);
    this.connections.add(connection);
    return connection;
  }

  /** Errors: StreamRefusal 429 when the token holds the most streams it may, 503 while stopping. */
  assertCanOpen(tokenId: string): void {
    if (this.stopped) throw new StreamRefusal('The server is shutting down', 503);
    if ((this.perToken.get(tokenId) ?? 0) >= this.maxConnectionsPerToken) {
      throw new StreamRefusal(
        `Too many open streams for this access token (at most ${this.maxConnectionsPerToken})`,
        429,
      );
    }
  }

  /** How many streams are open in this process (health, tests, benchmarks). */
  get openConnections(): number {
    return this.connections.size;
  }

  /** How many subscriptions the open streams of this process hold. */
  get openSubscriptions(): number {
    let n = 0;
    for (const connection of this.connections) n += connection.subscriptions.size;
    return n;
  }

  async subscribe(connection: Connection, stream: Stream): Promise<void> {
    if (connection.closed) return;
    if (!scopesAllow([...connection.viewer.scopes], streamScopes(stream))) {
      throw new StreamRefusal(STREAM_MESSAGES.scopes, 401);
    }
    const key = streamKey(stream);
    if (connection.subscriptions.has(key)) return;
    if (connection.subscriptions.size >= MAX_SUBSCRIPTIONS_PER_CONNECTION) {
      throw new StreamRefusal(`At most ${MAX_SUBSCRIPTIONS_PER_CONNECTION} streams per connection`, 400);
    }
    if (stream.kind === 'list') await this.checkList(connection.viewer.accountId, stream.listId);
    // Listening before the subscription counts: nothing published after this resolves is missed.
    await this.listen();
    if (connection.closed || connection.subscriptions.has(key)) return;
    const subscription: Subscription = { connection, stream };
    connection.subscriptions.set(key, subscription);
    for (const [index, id] of this.indexesOf(subscription)) add(index, id, subscription);
  }

  unsubscribe(connection: Connection, stream: Stream): void {
    const key = streamKey(stream);
    const subscription = connection.subscriptions.get(key);
    if (!subscription) return;
    connection.subscriptions.delete(key);
    for (const [index, id] of this.indexesOf(subscription)) remove(index, id, subscription);
  }

  release(connection: Connection): void {
    if (connection.closed) return;
    connection.closed = true;
    for (const subscription of [...connection.subscriptions.values()]) {
      this.unsubscribe(connection, subscription.stream);
    }
    this.connections.delete(connection);
    if (this.connections.size === 0) {
      clearInterval(this.tokenCheck);
      this.tokenCheck = undefined;
    }
    const { tokenId, accountId } = connection.viewer;
    const open = (this.perToken.get(tokenId) ?? 1) - 1;
    if (open <= 0) this.perToken.delete(tokenId);
    else this.perToken.set(tokenId, open);
    if (![...this.connections].some((other) => other.viewer.accountId === accountId)) {
      this.forgetMatchers(accountId);
    }
  }

  /**
   * Ends the streams whose token was revoked since they opened (the reference kills them too); one
   * query for all open tokens of this process. Returns how many streams ended.
   */
  async endRevoked(): Promise<number> {
    const live = await liveTokenIds(this.deps.sequelize, [...this.perToken.keys()]);
    let ended = 0;
    for (const connection of [...this.connections]) {
      if (live.has(connection.viewer.tokenId)) continue;
      connection.sink.end();
      this.release(connection);
      ended += 1;
    }
    return ended;
  }

  /** Ends every stream and stops listening (the server stops). */
  async close(): Promise<void> {
    this.stopped = true;
    clearInterval(this.tokenCheck);
    for (const connection of [...this.connections]) {
      connection.sink.end();
      this.release(connection);
    }
    const listening = this.listening;
    this.listening = null;
    if (listening) await (await listening.catch(() => async () => {}))();
    await this.queue;
  }

  private listen(): Promise<Unsubscribe> {
    if (!this.listening) {
      const listening = this.deps.pubsub.subscribe(STREAMING_CHANNEL, (payload) => {
        this.queue = this.queue
          .then(() => this.handle(payload as StreamingMessage))
          .catch((error: unknown) => {
            this.deps.logger.error({ err: error }, 'a streaming event could not be delivered');
          });
      });
      this.listening = listening;
      listening.catch(() => {
        if (this.listening === listening) this.listening = null;
      });
    }
    return this.listening;
  }

  private async checkList(accountId: string, listId: string): Promise<void> {
    try {
      if (!isRowId(listId)) throw new NotFound('Record not found');
      await this.deps.lists.get(accountId, listId);
    } catch (error) {
      if (error instanceof NotFound) throw new StreamRefusal(STREAM_MESSAGES.list, 401);
      throw error;
    }
  }

  private indexesOf(
    subscription: Subscription,
  ): Array<[Map<string, Set<Subscription>> | Set<Subscription>, string]> {
    const { stream, connection } = subscription;
    switch (stream.kind) {
      case 'user':
        return [[this.users, connection.viewer.accountId]];
      case 'direct':
        return [[this.directs, connection.viewer.accountId]];
      case 'list':
        return [[this.lists, stream.listId]];
      case 'hashtag':
        return [[this.tags, stream.tag]];
      case 'public':
        return [[this.publics, '']];
    }
  }

  // ---- delivery ----

  private async handle(message: StreamingMessage): Promise<void> {
    if (this.connections.size === 0 || typeof message !== 'object' || message === null) return;
    switch (message.e) {
      case 'update':
      case 'status.update':
        return this.deliverStatus(message.s, message.e);
      case 'delete':
        return this.deliverDelete(message.s, message.a);
      case 'notification':
        return this.deliverNotification(message.a, message.n);
      case 'filters_changed':
        return this.deliverFiltersChanged(message.a);
    }
  }

  private async deliverStatus(statusId: string, event: 'update' | 'status.update'): Promise<void> {
    const facts = await statusFacts(this.deps.sequelize, statusId);
    if (!facts || facts.deleted) return;
    const userSubs = this.timelineUserSubscriptions();
    const [homeViewers, listIds] = await Promise.all([
      userSubs.size === 0 ? [] : homeAudience(this.deps.sequelize, statusId, [...userSubs.keys()]),
      this.lists.size === 0 ? [] : listAudience(this.deps.sequelize, statusId, [...this.lists.keys()]),
    ]);
    const publicSubs = this.broadcastSubscriptions(facts);
    const directViewers =
      event === 'update' && facts.visibility === 'direct' && facts.reblogOfId === null
        ? [...this.directs.keys()].filter((id) => id === facts.accountId || facts.mentionIds.includes(id))
        : [];

    // Who must not see it: blocked or muted authors, mentions and domains (the seed's rule).
    const candidates = new Set<string>([...homeViewers, ...directViewers]);
    for (const listId of listIds)
      for (const sub of this.lists.get(listId) ?? []) candidates.add(sub.connection.viewer.accountId);
    for (const sub of publicSubs) candidates.add(sub.connection.viewer.accountId);
    if (candidates.size === 0) return;
    const excluded = await excludedViewers(this.deps.sequelize, facts, [...candidates]);

    // Home and lists: rendered for each viewer (their favourites, bookmarks, filters of `home`).
    const personal = new Map<string, Subscription[]>();
    for (const viewerId of homeViewers) {
      if (excluded.has(viewerId)) continue;
      personal.set(viewerId, [...(userSubs.get(viewerId) ?? [])]);
    }
    for (const listId of listIds) {
      for (const sub of this.lists.get(listId) ?? []) {
        const viewerId = sub.connection.viewer.accountId;
        if (excluded.has(viewerId)) continue;
        personal.set(viewerId, [...(personal.get(viewerId) ?? []), sub]);
      }
    }
    await forEachLimited([...personal], async ([viewerId, subs]) => {
      const payload = await this.renderStatus(statusId, viewerId, 'home');
      if (payload !== null) for (const sub of subs) this.write(sub, event, payload);
    });

    // Public and hashtag streams: one rendering without a viewer, as the reference's; filters per viewer.
    const broadcast = publicSubs.filter((sub) => !excluded.has(sub.connection.viewer.accountId));
    if (broadcast.length > 0) {
      const view = (await this.deps.statuses.views([statusId], null)).get(statusId);
      if (view) {
        const plain = JSON.stringify(serializeStatus(view, this.deps.json, { filtered: [] }));
        await forEachLimited(groupByViewer(broadcast), async ([viewerId, subs]) => {
          const payload = await this.filteredPayload(view, viewerId, 'public', plain);
          if (payload !== null) for (const sub of subs) this.write(sub, event, payload);
        });
      }
    }

    const conversationViewers = directViewers.filter((id) => !excluded.has(id));
    if (conversationViewers.length > 0) await this.deliverConversations(statusId, conversationViewers);
  }

  private async deliverConversations(statusId: string, viewerIds: string[]): Promise<void> {
    const rows = await this.deps.conversations.ofStatus(statusId, viewerIds);
    const statusIds = [
      ...new Set(rows.flatMap(({ row }) => (row.lastStatusId === null ? [] : [row.lastStatusId]))),
    ];
    const accounts = await loadAccounts(
      this.deps.accountViews,
      rows.flatMap(({ row }) => row.participantIds),
    );
    await forEachLimited(rows, async ({ accountId, row }) => {
      const views = await this.deps.statuses.views(statusIds, accountId);
      const last = row.lastStatusId === null ? undefined : views.get(row.lastStatusId);
      const payload = JSON.stringify(
        serializeConversation(
          row,
          row.participantIds.flatMap((id) => {
            const account = accounts.get(id);
            return account ? [serializeAccount(account, this.deps.json.publicUrl)] : [];
          }),
          last ? serializeStatus(last, this.deps.json) : null,
        ),
      );
      for (const sub of this.directs.get(accountId) ?? []) this.write(sub, 'conversation', payload);
    });
  }

  private async deliverDelete(statusId: string, accountId: string): Promise<void> {
    // A reblog's row is gone: its author's followers had it at home; it was never on public streams.
    const facts = (await statusFacts(this.deps.sequelize, statusId)) ?? goneReblog(statusId, accountId);
    const userSubs = this.timelineUserSubscriptions();
    const audience = await deleteAudience(
      this.deps.sequelize,
      facts,
      [...userSubs.keys()],
      [...this.lists.keys()],
    );
    const targets = new Set<Subscription>();
    for (const viewerId of audience.viewers) for (const sub of userSubs.get(viewerId) ?? []) targets.add(sub);
    for (const listId of audience.lists) for (const sub of this.lists.get(listId) ?? []) targets.add(sub);
    for (const sub of this.broadcastSubscriptions(facts)) targets.add(sub);
    for (const sub of targets) this.write(sub, 'delete', statusId);
  }

  private async deliverNotification(accountId: string, notificationId: string): Promise<void> {
    const subs = [...(this.users.get(accountId) ?? [])].filter(
      (sub) =>
        sub.stream.kind === 'user' &&
        (sub.stream.notificationsOnly ||
          scopesAllow([...sub.connection.viewer.scopes], ['read:notifications'])),
    );
    if (subs.length === 0) return;
    let row;
    try {
      row = await this.deps.notifications.find(accountId, notificationId);
    } catch (error) {
      if (error instanceof NotFound) return;
      throw error;
    }
    const { views } = await loadNotificationViews(this.deps.notificationViews, [row], accountId);
    const [view] = views;
    if (!view) return;
    const payload = JSON.stringify(serializeNotification(view, this.deps.json));
    for (const sub of subs) this.write(sub, 'notification', payload);
  }

  private deliverFiltersChanged(accountId: string): void {
    this.forgetMatchers(accountId);
    for (const sub of this.users.get(accountId) ?? []) {
      if (sub.stream.kind === 'user' && !sub.stream.notificationsOnly)
        this.write(sub, 'filters_changed', null);
    }
  }

  /** The `user` subscriptions (not `user:notification`) by account: the home timeline's audience. */
  private timelineUserSubscriptions(): Map<string, Subscription[]> {
    const byAccount = new Map<string, Subscription[]>();
    for (const [accountId, subs] of this.users) {
      const timeline = [...subs].filter((sub) => sub.stream.kind === 'user' && !sub.stream.notificationsOnly);
      if (timeline.length > 0) byAccount.set(accountId, timeline);
    }
    return byAccount;
  }

  /** Public and hashtag subscriptions a status goes to: public, not a reblog, by origin, media and tags. */
  private broadcastSubscriptions(facts: StatusFacts): Subscription[] {
    if (facts.visibility !== 'public' || facts.reblogOfId !== null) return [];
    const matches: Subscription[] = [];
    for (const sub of this.publics) {
      const stream = sub.stream;
      if (stream.kind !== 'public') continue;
      if (stream.origin === 'local' && !facts.local) continue;
      if (stream.origin === 'remote' && facts.local) continue;
      if (stream.onlyMedia && !facts.hasMedia) continue;
      matches.push(sub);
    }
    for (const tag of facts.tags) {
      for (const sub of this.tags.get(tag) ?? []) {
        if (sub.stream.kind === 'hashtag' && sub.stream.local && !facts.local) continue;
        matches.push(sub);
      }
    }
    return matches;
  }

  private async renderStatus(
    statusId: string,
    viewerId: string,
    context: FilterContext,
  ): Promise<string | null> {
    const [views, matcher] = await Promise.all([
      this.deps.statuses.views([statusId], viewerId),
      this.matcher(viewerId, context),
    ]);
    const view = views.get(statusId);
    if (!view) return null;
    const { matches, hidden } = matcher.match(view);
    if (hidden) return null;
    return JSON.stringify(
      serializeStatus(view, this.deps.json, { filtered: matches.map(serializeFilterResult) }),
    );
  }

  /** The shared rendering, unless the viewer's filters hide it (null) or warn about it (their matches). */
  private async filteredPayload(
    view: StatusView,
    viewerId: string,
    context: FilterContext,
    plain: string,
  ): Promise<string | null> {
    const { matches, hidden } = (await this.matcher(viewerId, context)).match(view);
    if (hidden) return null;
    if (matches.length === 0) return plain;
    return JSON.stringify(
      serializeStatus(view, this.deps.json, { filtered: matches.map(serializeFilterResult) }),
    );
  }

  private matcher(viewerId: string, context: FilterContext): Promise<StatusFilterMatcher> {
    const key = `${viewerId}:${context}`;
    const cached = this.matchers.get(key);
    if (cached && Date.now() - cached.at < MATCHER_TTL_MS) return cached.matcher;
    const matcher = this.deps.filters.matcher(viewerId, context);
    this.matchers.set(key, { at: Date.now(), matcher });
    matcher.catch(() => this.matchers.delete(key));
    return matcher;
  }

  private forgetMatchers(accountId: string): void {
    for (const key of this.matchers.keys()) if (key.startsWith(`${accountId}:`)) this.matchers.delete(key);
  }

  private write(sub: Subscription, event: StreamEvent, payload: string | null): void {
    if (sub.connection.closed) return;
    try {
      sub.connection.sink.send(sub.stream.label, event, payload);
    } catch (error) {
      this.deps.logger.debug({ err: error }, 'a stream frame could not be written');
    }
  }
}

function goneReblog(id: string, accountId: string): StatusFacts {
  return {
    id,
    accountId,
    visibility: 'public',
    local: true,
    deleted: true,
    reblogOfId: '',
    originalAccountId: null,
    hasMedia: false,
    tags: [],
    mentionIds: [],
    domains: [],
  };
}

function add<T>(index: Map<string, Set<T>> | Set<T>, id: string, item: T): void {
  if (index instanceof Set) {
    index.add(item);
    return;
  }
  let set = index.get(id);
  if (!set) {
    set = new Set();
    index.set(id, set);
  }
  set.add(item);
}

function remove<T>(index: Map<string, Set<T>> | Set<T>, id: string, item: T): void {
  if (index instanceof Set) {
    index.delete(item);
    return;
  }
  const set = index.get(id);
  set?.delete(item);
  if (set?.size === 0) index.delete(id);
}

function groupByViewer(subs: readonly Subscription[]): Array<[string, Subscription[]]> {
  const byViewer = new Map<string, Subscription[]>();
  for (const sub of subs) {
    const id = sub.connection.viewer.accountId;
    byViewer.set(id, [...(byViewer.get(id) ?? []), sub]);
  }
  return [...byViewer];
}

/** Runs `task` over `items`, at most RENDER_CONCURRENCY at a time. */
async function forEachLimited<T>(items: readonly T[], task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++] as T;
      await task(item);
    }
  };
  await Promise.all(Array.from({ length: Math.min(RENDER_CONCURRENCY, items.length) }, worker));
}
