import { scopesAllow, type Scope } from '@agora/auth';
import { NotFound, type Logger, type PubSub, type Unsubscribe } from '@agora/core';
import { isRowId } from '@agora/db';
import type { Sequelize } from 'sequelize';
import { serializeAccount } from '../../entities/account.js';
import { serializeConversation } from '../../entities/conversation.js';
import { serializeFilterResult } from '../../entities/filter.js';
import { serializeNotification } from '../../entities/notification.js';
import { serializeStatus, type StatusJsonContext } from '../../entities/status.js';
import type { ConversationService } from '../conversations/conversation.service.js';
import type { ListService } from '../lists/list.service.js';
import {
  FILTER_CONTEXTS,
  type FilterContext,
  type FilterService,
  type StatusFilterMatcher,
} from '../notifications/filter.service.js';
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
import { StreamFrame } from './frames.js';
import {
  deleteAudience,
  homeAudience,
  listAudience,
  statusFacts,
  type StatusFacts,
} from './views/audience.view.js';
import { excludes, flaggedViewers, loadRelations, type ViewerRelations } from './views/relations.view.js';
import { liveTokenIds } from './views/tokens.view.js';

/** The one pub/sub channel of streaming events: every web process listens, each serves its own sockets. */
export const STREAMING_CHANNEL = 'microblog:streaming';
/** Open streams (sockets and SSE) one access token may hold in one process. */
export const DEFAULT_MAX_CONNECTIONS_PER_TOKEN = 50;
/**
 * Unsent bytes a stream may hold in this process (what the kernel has not taken yet); past it the
 * client is too slow to follow and its connection is cut (ADR 0043): its memory stays bounded.
 */
export const DEFAULT_MAX_BUFFERED_BYTES = 8 * 1024 * 1024;
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
  | { e: 'filters_changed'; a: string }
  /** A block, mute or domain block of `a` (of `t`) changed: told by triggers of those tables. */
  | { e: 'relations'; a: string | null; t?: string | null };

/** Who holds a stream open: the account of a user token, with the token's scopes. */
export interface StreamViewer {
  accountId: string;
  tokenId: string;
  scopes: readonly Scope[];
}

/** Where a connection's frames go (a WebSocket, an SSE response). */
export interface StreamSink {
  /** One frame for the stream of `label`; the frame is shared with every other stream it goes to. */
  send(frame: StreamFrame, label: readonly string[]): void;
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

/** The index of public streams a subscription sits in: origin and media (6 keys). */
type PublicKey = `${'all' | 'local' | 'remote'}:${boolean}`;

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
  /** `user` and `user:notification` subscriptions by account (notifications go to both). */
  private readonly users = new Map<string, Set<Subscription>>();
  /** `user` subscriptions only, by account: the home timeline's audience. */
  private readonly homes = new Map<string, Set<Subscription>>();
  private readonly directs = new Map<string, Set<Subscription>>();
  private readonly lists = new Map<string, Set<Subscription>>();
  private readonly tags = new Map<string, Set<Subscription>>();
  private readonly publics = new Map<PublicKey, Set<Subscription>>();
  private readonly connections = new Set<Connection>();
  private readonly perToken = new Map<string, number>();
  /** Open connections per account: the relations and filters of an account are kept while > 0. */
  private readonly perAccount = new Map<string, number>();
  /** Blocks, mutes and domain blocks of every account with an open stream, kept current (ADR 0043). */
  private readonly relations = new Map<string, ViewerRelations>();
  private readonly relationsLoading = new Map<string, Promise<void>>();
  private relationsBatch: { ids: Set<string>; done: Promise<void> } | null = null;
  /** Accounts whose relations changed while they were being read. */
  private readonly relationsChanged = new Set<string>();
  private subscriptionCount = 0;
  private readonly matchers = new Map<string, { at: number; matcher: Promise<StatusFilterMatcher> }>();
  private listening: Promise<Unsubscribe> | null = null;
  private queue: Promise<void> = Promise.resolve();
  private stopped = false;
  readonly maxConnectionsPerToken: number;
  /** How often an SSE stream sends its `:thump` comment (the reference: every 15 s). */
  heartbeatMs = 15_000;
  /** Past this many unsent bytes a stream (socket or SSE) is cut. */
  maxBufferedBytes = DEFAULT_MAX_BUFFERED_BYTES;
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

  /** Notifications just made and committed (the notifications module tells after the commit). */
  async notificationsCreated(rows: ReadonlyArray<{ id: string; accountId: string }>): Promise<void> {
    for (const row of rows) await this.publish({ e: 'notification', n: row.id, a: row.accountId });
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
    this.perAccount.set(viewer.accountId, (this.perAccount.get(viewer.accountId) ?? 0) + 1);
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
    return this.subscriptionCount;
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
    // Listening before the subscription counts: nothing published after this resolves is missed,
    // and relations read after it are kept current by the `relations` messages.
    await this.listen();
    await this.loadRelationsOf(connection.viewer.accountId);
    if (connection.closed || connection.subscriptions.has(key)) return;
    const subscription: Subscription = { connection, stream };
    connection.subscriptions.set(key, subscription);
    this.subscriptionCount += 1;
    for (const [index, id] of this.indexesOf(subscription)) add(index, id, subscription);
  }

  unsubscribe(connection: Connection, stream: Stream): void {
    const key = streamKey(stream);
    const subscription = connection.subscriptions.get(key);
    if (!subscription) return;
    connection.subscriptions.delete(key);
    this.subscriptionCount -= 1;
    for (const [index, id] of this.indexesOf(subscription)) remove(index, id, subscription);
  }

  /** The connection ends: O(its own subscriptions), whatever the number of open connections. */
  release(connection: Connection): void {
    if (connection.closed) return;
    connection.closed = true;
    for (const subscription of connection.subscriptions.values()) {
      this.subscriptionCount -= 1;
      for (const [index, id] of this.indexesOf(subscription)) remove(index, id, subscription);
    }
    connection.subscriptions.clear();
    this.connections.delete(connection);
    if (this.connections.size === 0) {
      clearInterval(this.tokenCheck);
      this.tokenCheck = undefined;
    }
    const { tokenId, accountId } = connection.viewer;
    decrement(this.perToken, tokenId);
    if (decrement(this.perAccount, accountId) === 0) {
      this.forgetMatchers(accountId);
      this.relations.delete(accountId);
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
        const message = payload as StreamingMessage;
        // A status's reads start at once; its frames go out in the order of the messages.
        const early = this.prepareEarly(message);
        this.queue = this.queue
          .then(() => this.handle(message, early))
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

  private prepareEarly(message: StreamingMessage): Promise<PreparedStatus | null> | undefined {
    if (this.connections.size === 0 || typeof message !== 'object' || message === null) return undefined;
    if (message.e !== 'update' && message.e !== 'status.update') return undefined;
    const prepared = this.prepareStatus(message.s, message.e);
    // Its failure is reported when its turn comes (handle), not as an unhandled rejection now.
    prepared.catch(() => undefined);
    return prepared;
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

  /**
   * Reads the relations of an account with a new stream, batched with the other accounts that open
   * streams at the same moment (a reconnecting crowd costs a few queries, not one each).
   */
  private loadRelationsOf(accountId: string): Promise<void> {
    if (this.relations.has(accountId)) return Promise.resolve();
    const loading = this.relationsLoading.get(accountId);
    if (loading) return loading;
    let batch = this.relationsBatch;
    if (!batch) {
      const ids = new Set<string>();
      const done = new Promise<void>((resolve) => setImmediate(resolve)).then(async () => {
        if (this.relationsBatch?.ids === ids) this.relationsBatch = null;
        try {
          let wanted = [...ids];
          // A change heard while the read ran may be missing from it: those accounts are read again.
          while (wanted.length > 0) {
            for (const id of wanted) this.relationsChanged.delete(id);
            const loaded = await loadRelations(this.deps.sequelize, wanted);
            for (const [id, relations] of loaded) {
              // Kept only while the account still has a stream open here.
              if ((this.perAccount.get(id) ?? 0) > 0) this.relations.set(id, relations);
            }
            wanted = wanted.filter((id) => this.relationsChanged.has(id));
          }
        } finally {
          for (const id of ids) {
            this.relationsLoading.delete(id);
            this.relationsChanged.delete(id);
          }
        }
      });
      batch = this.relationsBatch = { ids, done };
    }
    batch.ids.add(accountId);
    this.relationsLoading.set(accountId, batch.done);
    return batch.done;
  }

  /** A block, mute or domain block changed: the relations held of those accounts are read again. */
  private async reloadRelations(accountIds: ReadonlyArray<string | null | undefined>): Promise<void> {
    for (const id of accountIds) if (id && this.relationsLoading.has(id)) this.relationsChanged.add(id);
    const held = accountIds.filter((id): id is string => typeof id === 'string' && this.relations.has(id));
    if (held.length === 0) return;
    const loaded = await loadRelations(this.deps.sequelize, held);
    for (const [id, relations] of loaded) if (this.relations.has(id)) this.relations.set(id, relations);
  }

  private indexesOf(subscription: Subscription): Array<[Map<string, Set<Subscription>>, string]> {
    const { stream, connection } = subscription;
    switch (stream.kind) {
      case 'user':
        return stream.notificationsOnly
          ? [[this.users, connection.viewer.accountId]]
          : [
              [this.users, connection.viewer.accountId],
              [this.homes, connection.viewer.accountId],
            ];
      case 'direct':
        return [[this.directs, connection.viewer.accountId]];
      case 'list':
        return [[this.lists, stream.listId]];
      case 'hashtag':
        return [[this.tags, stream.tag]];
      case 'public':
        return [[this.publics as Map<string, Set<Subscription>>, `${stream.origin}:${stream.onlyMedia}`]];
    }
  }

  // ---- delivery ----

  private async handle(message: StreamingMessage, early?: Promise<PreparedStatus | null>): Promise<void> {
    if (this.connections.size === 0 || typeof message !== 'object' || message === null) return;
    switch (message.e) {
      case 'update':
      case 'status.update':
        return this.deliverStatus(message.s, message.e, early);
      case 'delete':
        return this.deliverDelete(message.s, message.a);
      case 'notification':
        return this.deliverNotification(message.a, message.n);
      case 'filters_changed':
        return this.deliverFiltersChanged(message.a);
      case 'relations':
        return this.reloadRelations([message.a, message.t]);
    }
  }

  /**
   * A status to its audience in this process. Who must not see it is decided in memory from the
   * viewers' relations; the status is rendered once for every home and list viewer with nothing of
   * their own on it (flags, filters), once for public and hashtag streams, and separately only for
   * the few others; each distinct payload becomes one frame shared by all its sockets.
   */
  private async deliverStatus(
    statusId: string,
    event: 'update' | 'status.update',
    early?: Promise<PreparedStatus | null>,
  ): Promise<void> {
    const prepared = await (early ?? this.prepareStatus(statusId, event));
    if (!prepared) return;
    const { facts, homeViewers, listIds, shared, checked } = prepared;
    const publicSubs = this.broadcastSubscriptions(facts);
    const directViewers =
      event === 'update' && facts.visibility === 'direct' && facts.reblogOfId === null
        ? [...new Set([facts.accountId, ...facts.mentionIds])].filter((id) => this.directs.has(id))
        : [];

    // Who must not see it: blocked or muted authors, mentions and domains (the seed's rule), judged
    // now, in the order of the channel's messages (a block told before this status applies).
    const authors =
      facts.originalAccountId === null ? [facts.accountId] : [facts.accountId, facts.originalAccountId];
    const involved = { authors, mentions: facts.mentionIds, domains: facts.domains };
    const now = Date.now();
    const excluded = (viewerId: string) => {
      if (viewerId === facts.accountId) return false;
      const relations = this.relations.get(viewerId);
      return relations !== undefined && excludes(relations, involved, now);
    };

    // Home and lists: their viewers' streams, by viewer.
    const personal = new Map<string, Subscription[]>();
    for (const viewerId of homeViewers) {
      const subs = this.homes.get(viewerId);
      if (subs && !excluded(viewerId)) personal.set(viewerId, [...subs]);
    }
    for (const listId of listIds) {
      for (const sub of this.lists.get(listId) ?? []) {
        const viewerId = sub.connection.viewer.accountId;
        if (excluded(viewerId)) continue;
        const subs = personal.get(viewerId);
        if (subs) subs.push(sub);
        else personal.set(viewerId, [sub]);
      }
    }
    const broadcast = publicSubs.filter((sub) => !excluded(sub.connection.viewer.accountId));

    if (shared && (personal.size > 0 || broadcast.length > 0)) {
      // Its authors see their pins and poll; flagged viewers their flags; a viewer whose flags were
      // not read (it subscribed since) too: rendered for themselves.
      const flagged = new Set(prepared.flagged);
      for (const id of authors) flagged.add(id);
      for (const id of personal.keys()) if (!checked.has(id)) flagged.add(id);
      await this.deliverPersonal(statusId, event, shared, personal, flagged);
      await this.deliverBroadcast(event, shared, broadcast);
    }

    const conversationViewers = directViewers.filter((id) => !excluded(id));
    if (conversationViewers.length > 0) await this.deliverConversations(statusId, conversationViewers);
  }

  /**
   * What delivering a status reads, started as soon as its message is heard (while earlier events
   * are still being sent): its facts, the feeds holding it, its rendering without a viewer and the
   * candidate viewers with flags of their own. Nothing here depends on relations or filters, which
   * are applied when its turn comes. Null when nobody here can receive it.
   */
  private async prepareStatus(
    statusId: string,
    event: 'update' | 'status.update',
  ): Promise<PreparedStatus | null> {
    // The facts and the feeds holding it are read at once (one round trip before rendering).
    const [facts, homeViewers, listIds] = await Promise.all([
      statusFacts(this.deps.sequelize, statusId),
      this.homes.size === 0 ? [] : homeAudience(this.deps.sequelize, statusId, [...this.homes.keys()]),
      this.lists.size === 0 ? [] : listAudience(this.deps.sequelize, statusId, [...this.lists.keys()]),
    ]);
    if (!facts || facts.deleted) return null;
    const candidates = new Set(homeViewers.filter((id) => this.homes.has(id)));
    for (const listId of listIds) {
      for (const sub of this.lists.get(listId) ?? []) candidates.add(sub.connection.viewer.accountId);
    }
    const broadcasts = this.broadcastSubscriptions(facts).length > 0;
    const direct = event === 'update' && facts.visibility === 'direct' && facts.reblogOfId === null;
    if (candidates.size === 0 && !broadcasts && !direct) return null;
    if (candidates.size === 0 && !broadcasts) {
      return { facts, homeViewers, listIds, shared: undefined, flagged: new Set(), checked: candidates };
    }
    const ids = facts.reblogOfId === null ? [statusId] : [statusId, facts.reblogOfId];
    const [shared, flagged] = await Promise.all([
      this.deps.statuses.views([statusId], null).then((views) => views.get(statusId)),
      flaggedViewers(this.deps.sequelize, ids, [...candidates]),
    ]);
    return { facts, homeViewers, listIds, shared, flagged, checked: candidates };
  }

  private async deliverPersonal(
    statusId: string,
    event: StreamEvent,
    shared: StatusView,
    personal: Map<string, Subscription[]>,
    flagged: Set<string>,
  ): Promise<void> {
    if (personal.size === 0) return;
    const view = withoutViewerFlags(shared);
    let plain: StreamFrame | undefined;
    const individual: Array<[string, Subscription[]]> = [];
    const shares: Array<[string, Subscription[]]> = [];
    for (const entry of personal) (flagged.has(entry[0]) ? individual : shares).push(entry);
    // Filters first (cached; read at once when not), then every shared frame goes out in one
    // synchronous pass: no await between two sockets.
    const matchers = await Promise.all(shares.map(([viewerId]) => this.matcher(viewerId, 'home')));
    for (let i = 0; i < shares.length; i++) {
      const subs = shares[i]![1];
      const { matches, hidden } = matchers[i]!.match(view);
      if (hidden) continue;
      const frame =
        matches.length === 0
          ? (plain ??= new StreamFrame(
              event,
              JSON.stringify(serializeStatus(view, this.deps.json, { filtered: [] })),
            ))
          : new StreamFrame(
              event,
              JSON.stringify(
                serializeStatus(view, this.deps.json, { filtered: matches.map(serializeFilterResult) }),
              ),
            );
      for (const sub of subs) this.write(sub, frame);
    }
    await forEachLimited(individual, async ([viewerId, subs]) => {
      const payload = await this.renderStatus(statusId, viewerId, 'home');
      if (payload === null) return;
      const frame = new StreamFrame(event, payload);
      for (const sub of subs) this.write(sub, frame);
    });
  }

  /** Public and hashtag streams: one rendering without a viewer, as the reference's; filters per viewer. */
  private async deliverBroadcast(
    event: StreamEvent,
    view: StatusView,
    broadcast: Subscription[],
  ): Promise<void> {
    if (broadcast.length === 0) return;
    const plain = new StreamFrame(
      event,
      JSON.stringify(serializeStatus(view, this.deps.json, { filtered: [] })),
    );
    const byViewer = new Map<string, StreamFrame | null>();
    for (const sub of broadcast) {
      const viewerId = sub.connection.viewer.accountId;
      let frame = byViewer.get(viewerId);
      if (frame === undefined) {
        const { matches, hidden } = (await this.matcher(viewerId, 'public')).match(view);
        frame = hidden
          ? null
          : matches.length === 0
            ? plain
            : new StreamFrame(
                event,
                JSON.stringify(
                  serializeStatus(view, this.deps.json, { filtered: matches.map(serializeFilterResult) }),
                ),
              );
        byViewer.set(viewerId, frame);
      }
      if (frame) this.write(sub, frame);
    }
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
      const frame = new StreamFrame(
        'conversation',
        JSON.stringify(
          serializeConversation(
            row,
            row.participantIds.flatMap((id) => {
              const account = accounts.get(id);
              return account ? [serializeAccount(account, this.deps.json.publicUrl)] : [];
            }),
            last ? serializeStatus(last, this.deps.json) : null,
          ),
        ),
      );
      for (const sub of this.directs.get(accountId) ?? []) this.write(sub, frame);
    });
  }

  private async deliverDelete(statusId: string, accountId: string): Promise<void> {
    // A reblog's row is gone: its author's followers had it at home; it was never on public streams.
    const facts = (await statusFacts(this.deps.sequelize, statusId)) ?? goneReblog(statusId, accountId);
    const audience = await deleteAudience(
      this.deps.sequelize,
      facts,
      [...this.homes.keys()],
      [...this.lists.keys()],
    );
    const targets = new Set<Subscription>();
    for (const viewerId of audience.viewers)
      for (const sub of this.homes.get(viewerId) ?? []) targets.add(sub);
    for (const listId of audience.lists) for (const sub of this.lists.get(listId) ?? []) targets.add(sub);
    for (const sub of this.broadcastSubscriptions(facts)) targets.add(sub);
    const frame = new StreamFrame('delete', statusId);
    for (const sub of targets) this.write(sub, frame);
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
    const frame = new StreamFrame(
      'notification',
      JSON.stringify(serializeNotification(view, this.deps.json)),
    );
    for (const sub of subs) this.write(sub, frame);
  }

  private deliverFiltersChanged(accountId: string): void {
    this.forgetMatchers(accountId);
    const frame = new StreamFrame('filters_changed', null);
    for (const sub of this.homes.get(accountId) ?? []) this.write(sub, frame);
  }

  /** Public and hashtag subscriptions a status goes to: public, not a reblog, by origin, media and tags. */
  private broadcastSubscriptions(facts: StatusFacts): Subscription[] {
    if (facts.visibility !== 'public' || facts.reblogOfId !== null) return [];
    const matches: Subscription[] = [];
    const origins = ['all', facts.local ? 'local' : 'remote'] as const;
    for (const origin of origins) {
      for (const media of facts.hasMedia ? [false, true] : [false]) {
        for (const sub of this.publics.get(`${origin}:${media}`) ?? []) matches.push(sub);
      }
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

  /**
   * A viewer's filters, cached (a change clears them at once, in every process). Past MATCHER_TTL_MS
   * they are read again in the background and the held ones serve meanwhile: an event never waits
   * for a crowd of viewers' filters to be re-read at once.
   */
  private matcher(viewerId: string, context: FilterContext): Promise<StatusFilterMatcher> {
    const key = `${viewerId}:${context}`;
    const cached = this.matchers.get(key);
    if (cached && Date.now() - cached.at < MATCHER_TTL_MS) return cached.matcher;
    const matcher = this.deps.filters.matcher(viewerId, context);
    const entry = { at: Date.now(), matcher };
    if (cached) {
      // Replaced once read, unless cleared (a change) or replaced meanwhile.
      cached.at = Date.now();
      matcher.then(
        () => {
          if (this.matchers.get(key) === cached) this.matchers.set(key, entry);
        },
        () => undefined,
      );
      return cached.matcher;
    }
    this.matchers.set(key, entry);
    matcher.catch(() => {
      if (this.matchers.get(key) === entry) this.matchers.delete(key);
    });
    return matcher;
  }

  private forgetMatchers(accountId: string): void {
    for (const context of FILTER_CONTEXTS) this.matchers.delete(`${accountId}:${context}`);
  }

  private write(sub: Subscription, frame: StreamFrame): void {
    if (sub.connection.closed) return;
    try {
      sub.connection.sink.send(frame, sub.stream.label);
    } catch (error) {
      this.deps.logger.debug({ err: error }, 'a stream frame could not be written');
    }
  }
}

/** A status's reads for delivery, made before its turn (StreamingService.prepareStatus). */
interface PreparedStatus {
  facts: StatusFacts;
  /** Viewers with a home stream here whose feed holds it. */
  homeViewers: string[];
  /** Lists with a stream here whose feed holds it. */
  listIds: string[];
  /** Its rendering without a viewer; undefined when only direct streams may receive it. */
  shared: StatusView | undefined;
  /** Of `checked`, the viewers with something of their own on it (rendered for themselves). */
  flagged: ReadonlySet<string>;
  /** The viewers whose flags were read. */
  checked: ReadonlySet<string>;
}

/**
 * The view as a signed-in viewer with nothing of their own on it sees it (not the author: no
 * `pinned`; no vote in its poll), shared by every such viewer.
 */
function withoutViewerFlags(view: StatusView): StatusView {
  return {
    ...view,
    viewer: { favourited: false, reblogged: false, bookmarked: false, muted: false, pinned: false },
    viewerId: null,
    poll: view.poll ? { ...view.poll, viewer: { voted: false, ownVotes: [] } } : null,
    reblog: view.reblog ? withoutViewerFlags(view.reblog) : null,
  };
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

function add<T>(index: Map<string, Set<T>>, id: string, item: T): void {
  let set = index.get(id);
  if (!set) {
    set = new Set();
    index.set(id, set);
  }
  set.add(item);
}

function remove<T>(index: Map<string, Set<T>>, id: string, item: T): void {
  const set = index.get(id);
  set?.delete(item);
  if (set?.size === 0) index.delete(id);
}

/** One less of `key`; the entry goes at zero. Returns what is left. */
function decrement(counts: Map<string, number>, key: string): number {
  const left = (counts.get(key) ?? 1) - 1;
  if (left <= 0) counts.delete(key);
  else counts.set(key, left);
  return Math.max(0, left);
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
