import type { KeyObject } from 'node:crypto';
import {
  BadInput,
  Forbidden,
  NotFound,
  Unauthenticated,
  type JobQueue,
  type Logger,
  type PeriodicJob,
} from '@agora/core';
import {
  acctOf,
  PushSubscriber,
  sameOrigin,
  sanitizeRemoteHtml,
  type Actor,
  type ActorStore,
  type Federation,
  type PushContent,
  type PushHub,
  REL_MAGIC_PUBLIC_KEY,
} from '@agora/federation';
import { QueryTypes, type Sequelize } from 'sequelize';
import type { StatusFederation } from '../statuses-federation/statuses.federation.js';
import { localConversationUri } from '../statuses-federation/note-objects.js';
import type { RemoteNoteValues } from '../statuses-federation/remote-notes.js';
import { FAN_OUT_JOB, type StatusListener, type StatusService } from '../statuses/status.service.js';
import type { StatusView } from '../statuses/views/status.view.js';
import type { Visibility } from '../statuses/status.model.js';
import { NS, PUBLIC_COLLECTION, renderFeed, VERBS, type AtomAuthor, type AtomEntry } from './atom.js';
import { resolveOStatusAccount } from './ostatus-accounts.js';
import { OStatusOutbound, ostatusOnly } from './ostatus-outbound.js';
import {
  childOf,
  childrenOf,
  keyFromMagicPublicKey,
  parseMagicEnvelope,
  parseXml,
  verifyMagicEnvelope,
  type MagicEnvelope,
  type XmlElement,
} from './magic-envelope.js';

/** Entries per feed page, as early Mastodon (spec microblog/not-shown.md §4.1). */
export const FEED_PAGE_SIZE = 20;
const INVALID_SIGNATURE = 'Invalid signature';
const VISIBILITIES: readonly Visibility[] = ['public', 'unlisted', 'private', 'direct'];
/** The periodic job renewing our hub subscriptions a day before their lease ends (Mastodon's push:refresh). */
export const OSTATUS_RENEW_JOB = 'ostatus.renew-subscriptions';
const DAY_SECONDS = 86_400;
/** Entries taken from one pushed feed (a hub sends one; a feed page holds twenty). */
const MAX_PUSHED_ENTRIES = 20;

export interface OStatusOptions {
  sequelize: Sequelize;
  actors: ActorStore;
  statuses: StatusService;
  statusFederation: StatusFederation;
  federation: Federation;
  pushHub: PushHub;
  queue: JobQueue;
  logger: Logger;
  publicUrl: string;
}

/** What a Salmon slap did, for the endpoint's answer and the logs. */
export type SalmonOutcome = 'stored' | 'known' | 'followed' | 'unfollowed' | 'ignored';

interface PageLinks {
  id: string;
  parentUri: string | null;
  parentUrl: string | null;
  conversationId: string | null;
  conversationUri: string | null;
  conversationCreatedAt: Date | null;
}

/**
 * OStatus as early Mastodon spoke it (issue 16 §6): the account Atom feed, each new, edited or
 * deleted public status pushed through the PuSH hub, the Salmon endpoint for replies, mentions and
 * follows, Salmon slaps to OStatus-only accounts (`OStatusOutbound`), and following such accounts:
 * found through WebFinger, their feed subscribed at their hub, the entries it pushes stored.
 */
export class OStatusService {
  /** Our subscriptions to the hubs of followed OStatus-only accounts (callback `/api/subscriptions/:id`). */
  readonly subscriber: PushSubscriber;
  private readonly outbound: OStatusOutbound;
  private readonly logger: Logger;
  private readonly localHost: string;

  constructor(private readonly options: OStatusOptions) {
    this.logger = options.logger.child({ component: 'ostatus' });
    this.localHost = new URL(options.publicUrl).host;
    this.subscriber = new PushSubscriber({
      sequelize: options.sequelize,
      fetch: options.federation.fetch,
      logger: options.logger,
      // The callback id is the followed account's id, as Mastodon's.
      callbackUrl: (id) => `${options.publicUrl}/api/subscriptions/${id}`,
      onContent: (content) => this.receivePushed(content),
    });
    this.outbound = new OStatusOutbound({
      ...options,
      subscriber: this.subscriber,
      render: {
        entry: async (statusId) => (await this.entries([statusId], { localOnly: true }))[0] ?? null,
        author: (actor) => this.authorOf(actor),
        feedUrl: (username) => this.feedUrl(username),
      },
    });
    options.federation.addFollowTransport(this.outbound.followTransport());
    options.federation.addAccountResolver((jrd, resource) =>
      resolveOStatusAccount({ federation: options.federation, logger: this.logger }, jrd, resource),
    );
  }

  /** The workers of PuSH publishes, Salmon slaps and hub subscriptions (no-ops on role web). */
  registerWorker(): Promise<void> {
    return this.outbound.registerWorker();
  }

  /** Hourly: subscriptions to remote hubs whose lease ends within a day are asked for again. */
  periodicJobs(): PeriodicJob[] {
    return [
      {
        name: OSTATUS_RENEW_JOB,
        periodMs: 3_600_000,
        run: async () => (await this.subscriber.renewExpiring(DAY_SECONDS)).renewed,
      },
    ];
  }

  feedUrl(username: string): string {
    return `${this.options.publicUrl}/users/${encodeURIComponent(username)}.atom`;
  }

  salmonUrl(actorId: string): string {
    return `${this.options.publicUrl}/api/salmon/${actorId}`;
  }

  /**
   * The feed of a local account: its public and unlisted statuses and reblogs (never private or
   * direct), newest first, 20 a page older than `maxId`. Null when there is no such account.
   */
  async feed(username: string, maxId: string | null): Promise<string | null> {
    const author = await this.options.actors.findByUsername(username, null);
    if (!author?.local || author.suspended) return null;
    if (maxId !== null && !/^\d{1,19}$/.test(maxId)) throw new BadInput('Invalid max_id');
    // statuses_account_id_idx (account_id, id DESC) WHERE deleted_at IS NULL: one bounded scan.
    const rows = await this.options.sequelize.query<{ id: string }>(
      `SELECT s.id::text AS id FROM statuses s
        WHERE s.account_id = $1 AND s.deleted_at IS NULL AND s.visibility IN ('public', 'unlisted')
          AND ($2::bigint IS NULL OR s.id < $2::bigint)
        ORDER BY s.id DESC LIMIT ${FEED_PAGE_SIZE + 1}`,
      { bind: [author.id, maxId], type: QueryTypes.SELECT },
    );
    const page = rows.slice(0, FEED_PAGE_SIZE).map((row) => row.id);
    const entries = await this.entries(page);
    const last = page.at(-1);
    return renderFeed({
      author: this.authorOf(author),
      selfUrl: this.feedUrl(author.username),
      hubUrl: this.options.pushHub.hubUrl,
      salmonUrl: this.salmonUrl(author.id),
      updated: entries[0]?.updated ?? author.updatedAt,
      entries,
      nextUrl:
        rows.length > FEED_PAGE_SIZE && last ? `${this.feedUrl(author.username)}?max_id=${last}` : null,
    });
  }

  /**
   * Committed changes of local statuses: new, edited and deleted public ones are published to the
   * PuSH hub (private and direct never); replies, mentions, shares and favourites concerning
   * OStatus-only accounts are sent to them by Salmon.
   */
  statusListener(): StatusListener {
    return this.outbound.statusListener();
  }

  /** Entries of statuses in the given order; private, direct, deleted and missing ones are left out. */
  private async entries(ids: readonly string[], options: { localOnly?: boolean } = {}): Promise<AtomEntry[]> {
    if (ids.length === 0) return [];
    const views = await this.options.statuses.views(ids, null);
    const shown = ids
      .map((id) => views.get(id))
      .filter((view): view is StatusView => {
        if (!view || view.row.deletedAt) return false;
        if (options.localOnly && !view.row.local) return false;
        if (view.row.visibility !== 'public' && view.row.visibility !== 'unlisted') return false;
        const original = view.reblog;
        return !original || original.row.visibility === 'public' || original.row.visibility === 'unlisted';
      });
    const all = shown.flatMap((view) => (view.reblog ? [view, view.reblog] : [view]));
    const [links, authors] = await Promise.all([
      this.linksOf(all.map((view) => view.row.id)),
      this.options.actors.findByIds([...new Set(all.map((view) => view.row.accountId))]),
    ]);
    const entryOf = (view: StatusView): AtomEntry | null => {
      const author = authors.get(view.row.accountId);
      if (!author) return null;
      const link = links.get(view.row.id);
      const shared = view.reblog ? entryOf(view.reblog) : null;
      if (view.reblog && !shared) return null;
      return {
        id: view.row.uri ?? `${author.uri}/statuses/${view.row.id}`,
        url:
          view.row.url ??
          (author.local ? `${this.options.publicUrl}/@${author.username}/${view.row.id}` : null),
        published: view.row.createdAt,
        updated: view.row.editedAt ?? view.row.createdAt,
        author: this.authorOf(author),
        content: view.row.content,
        spoilerText: view.row.spoilerText,
        sensitive: view.row.sensitive,
        language: view.row.language,
        visibility: view.row.visibility === 'public' ? 'public' : 'unlisted',
        inReplyTo: link?.parentUri ? { uri: link.parentUri, url: link.parentUrl } : null,
        conversationUri: link ? this.conversationUri(link) : null,
        mentionUris: view.mentions.map((mention) => mention.uri),
        tags: view.tags,
        shared,
      };
    };
    return shown.map(entryOf).filter((entry): entry is AtomEntry => entry !== null);
  }

  private authorOf(actor: Actor): AtomAuthor {
    return {
      uri: actor.uri,
      username: actor.username,
      acct: actor.local ? `${actor.username}@${this.localHost}` : acctOf(actor),
      displayName: actor.displayName,
      summary: actor.summary,
      profileUrl: actor.url ?? actor.uri,
      avatarUrl: actor.avatarUrl,
    };
  }

  private conversationUri(link: PageLinks): string | null {
    if (link.conversationUri) return link.conversationUri;
    if (link.conversationId === null || link.conversationCreatedAt === null) return null;
    return localConversationUri(this.localHost, link.conversationId, link.conversationCreatedAt);
  }

  /** Parents and conversations of a page of statuses, in one query. */
  private async linksOf(ids: readonly string[]): Promise<Map<string, PageLinks>> {
    if (ids.length === 0) return new Map();
    const rows = await this.options.sequelize.query<PageLinks>(
      `SELECT s.id::text AS id, p.uri AS "parentUri", p.url AS "parentUrl", c.id::text AS "conversationId",
              c.uri AS "conversationUri", c.created_at AS "conversationCreatedAt"
         FROM statuses s
         LEFT JOIN statuses p ON p.id = s.in_reply_to_id
         LEFT JOIN conversations c ON c.id = s.conversation_id
        WHERE s.id = ANY($1::bigint[])`,
      { bind: [ids], type: QueryTypes.SELECT },
    );
    return new Map(rows.map((row) => [row.id, row]));
  }

  // ---- Salmon ------------------------------------------------------------------------------------

  /**
   * `POST /api/salmon/:accountId`: a magic envelope for the local account. The envelope's signature
   * must verify with the key of the entry's author (known, or fetched through the guarded client);
   * then a post (a reply or a mention) is stored in its thread, a follow or unfollow recorded.
   * Errors: NotFound (no such local account), BadInput (not an envelope or entry),
   * Unauthenticated (the signature does not verify with the author's key: nothing is stored),
   * Forbidden (a follow from an account the target blocks).
   */
  async salmon(accountId: string, body: string): Promise<SalmonOutcome> {
    const target = /^\d{1,19}$/.test(accountId) ? await this.options.actors.findById(accountId) : null;
    if (!target?.local || target.suspended) throw new NotFound('Record not found');
    const envelope = parseMagicEnvelope(body);
    const entry = parseXml(envelope.payload);
    if (entry.namespaceURI !== NS.atom || entry.localName !== 'entry')
      throw new BadInput('Not an Atom entry');
    const authorUri = text(childOf(entry, NS.atom, 'author'), NS.atom, 'uri');
    if (!authorUri || !/^https?:\/\//.test(authorUri)) throw new BadInput('The entry has no author');
    const host = new URL(authorUri).hostname.toLowerCase();
    if (await this.options.federation.domainBlocks.isSuspended(host))
      throw new Unauthenticated(INVALID_SIGNATURE);
    const author = await this.verifiedAuthor(authorUri, envelope);
    if (!author) throw new Unauthenticated(INVALID_SIGNATURE);

    const verb = text(entry, NS.activity, 'verb') ?? VERBS.post;
    switch (normalVerb(verb)) {
      case VERBS.post:
        return this.receivePost(author, target, entry);
      case VERBS.follow:
        return this.receiveFollow(author, target, entry, true);
      case VERBS.unfollow:
        return this.receiveFollow(author, target, entry, false);
      default:
        this.logger.info({ verb, actor: author.uri }, 'ignored a Salmon slap of an unhandled verb');
        return 'ignored';
    }
  }

  /**
   * The entry's author when the envelope verifies with its key: a known actor's key first; when that
   * fails (or the actor is new), its document fetched again through the guarded client (a rotated
   * key), then the `magic-public-key` its server publishes in WebFinger. Null: no key verifies.
   */
  private async verifiedAuthor(uri: string, envelope: MagicEnvelope): Promise<Actor | null> {
    const usable = (actor: Actor | null): actor is Actor => !!actor && !actor.local && !actor.suspended;
    const known = await this.options.actors.findByUri(uri);
    if (usable(known) && known.publicKeyPem && verifyMagicEnvelope(envelope, known.publicKeyPem))
      return known;
    if (known?.local || known?.suspended) return null;
    let author: Actor | null = null;
    try {
      author = await this.options.federation.remoteActors.resolve(uri, { refresh: known !== null });
    } catch (error) {
      this.logger.info({ uri, err: error }, 'could not fetch the author of a Salmon slap');
      return null;
    }
    if (!usable(author)) return null;
    if (author.publicKeyPem && verifyMagicEnvelope(envelope, author.publicKeyPem)) return author;
    const magic = await this.webFingerKey(uri);
    return magic && verifyMagicEnvelope(envelope, magic) ? author : null;
  }

  /** The `magic-public-key` the author's server publishes for `uri` (WebFinger, guarded client). */
  private async webFingerKey(uri: string): Promise<KeyObject | null> {
    const origin = new URL(uri).origin;
    try {
      const response = await this.options.federation.fetch.get(
        `${origin}/.well-known/webfinger?resource=${encodeURIComponent(uri)}`,
        {
          headers: { accept: 'application/jrd+json, application/json' },
          signed: false,
          maxBodyBytes: 64 * 1024,
        },
      );
      if (!response.ok) return null;
      const jrd = response.json() as { links?: Array<{ rel?: unknown; href?: unknown }> } | null;
      const link = jrd?.links?.find((l) => l?.rel === REL_MAGIC_PUBLIC_KEY && typeof l.href === 'string');
      return link ? keyFromMagicPublicKey(String(link.href)) : null;
    } catch (error) {
      this.logger.info({ uri, err: error }, 'could not read the magic-public-key of a Salmon author');
      return null;
    }
  }

  private async receivePost(author: Actor, target: Actor, entry: XmlElement): Promise<SalmonOutcome> {
    const values = this.postValues(author, entry);
    const { statusFederation, queue } = this.options;
    // A slap concerns the account it is sent to: it mentions it or replies to one of its statuses.
    const [concerns] = await this.options.sequelize.query<{ yes: boolean }>(
      `SELECT ($1::text = ANY($2::text[])
               OR EXISTS (SELECT 1 FROM statuses s WHERE s.uri = $3 AND s.account_id = $4)) AS yes`,
      { bind: [target.uri, values.mentionUris, values.inReplyToUri, target.id], type: QueryTypes.SELECT },
    );
    if (!concerns?.yes) {
      this.logger.info(
        { actor: author.uri, uri: values.uri },
        'ignored a Salmon post that does not concern its target',
      );
      return 'ignored';
    }
    // A reply to a status not known yet: its parent is fetched (one level, guarded) so the thread holds.
    if (values.inReplyToUri && !/^tag:/.test(values.inReplyToUri)) {
      const [parent] = await this.options.sequelize.query<{ id: string }>(
        'SELECT id::text AS id FROM statuses WHERE uri = $1',
        { bind: [values.inReplyToUri], type: QueryTypes.SELECT },
      );
      if (!parent) await statusFederation.fetchStatus(values.inReplyToUri).catch(() => null);
    }
    const statusId = await statusFederation.storeRemote(author, values);
    if (!statusId) return 'known';
    // The fan-out job writes home feeds and tells notifications (mentions, replies) and streaming.
    await queue.send(FAN_OUT_JOB, { statusId });
    return 'stored';
  }

  // ---- Feeds pushed by the hubs of followed OStatus-only accounts ---------------------------------

  /**
   * Content a hub POSTed to `/api/subscriptions/:id` after its `X-Hub-Signature` verified with our
   * secret (the subscriber drops anything else unread). Each post entry by the subscribed account
   * is stored as its status and fanned out to its local followers' home feeds; entries by anyone
   * else, other verbs and malformed documents are left out (logged, never an error to the hub).
   */
  private async receivePushed(content: PushContent): Promise<void> {
    const author = await this.options.actors.findById(content.subscription.callbackId);
    if (!ostatusOnly(author) || author.endpoints.atom !== content.subscription.topic) {
      this.logger.info({ topic: content.subscription.topic }, 'pushed content for an unknown feed ignored');
      return;
    }
    let root: XmlElement;
    try {
      root = parseXml(content.body);
    } catch {
      this.logger.info({ topic: content.subscription.topic }, 'pushed content is not XML');
      return;
    }
    const isFeed = root.namespaceURI === NS.atom && root.localName === 'feed';
    const isEntry = root.namespaceURI === NS.atom && root.localName === 'entry';
    if (!isFeed && !isEntry) return;
    const feedAuthor = isFeed ? text(childOf(root, NS.atom, 'author'), NS.atom, 'uri') : null;
    const entries = isFeed ? childrenOf(root, NS.atom, 'entry').slice(0, MAX_PUSHED_ENTRIES) : [root];
    for (const entry of entries) {
      const by = text(childOf(entry, NS.atom, 'author'), NS.atom, 'uri') ?? feedAuthor;
      const verb = normalVerb(text(entry, NS.activity, 'verb') ?? VERBS.post);
      if (by !== author.uri || verb !== VERBS.post) {
        this.logger.info({ actor: author.uri, verb, by }, 'a pushed entry was left out');
        continue;
      }
      try {
        const statusId = await this.options.statusFederation.storeRemote(
          author,
          this.postValues(author, entry),
        );
        if (statusId) await this.options.queue.send(FAN_OUT_JOB, { statusId });
      } catch (error) {
        if (!(error instanceof BadInput)) throw error;
        this.logger.info({ actor: author.uri, err: error }, 'a pushed entry was refused');
      }
    }
  }

  /** A post entry as the values of a remote status. Errors: BadInput (no id, or an id of another origin). */
  private postValues(author: Actor, entry: XmlElement): RemoteNoteValues {
    const uri = text(entry, NS.atom, 'id');
    if (!uri || !sameAuthority(uri, author.uri)) throw new BadInput('The entry id is not of its author');
    const content = childOf(entry, NS.atom, 'content');
    const type = content?.getAttribute('type') ?? 'text';
    const raw = content?.textContent ?? '';
    const html = type === 'html' || type === 'xhtml' ? raw : `<p>${escapeText(raw)}</p>`;
    const links = childrenOf(entry, NS.atom, 'link');
    const mentioned = links
      .filter((link) => link.getAttribute('rel') === 'mentioned')
      .map((link) => link.getAttribute('href') ?? '')
      .filter((href) => /^https?:\/\//.test(href) && href !== PUBLIC_COLLECTION);
    const isPublic = links.some(
      (link) => link.getAttribute('rel') === 'mentioned' && link.getAttribute('href') === PUBLIC_COLLECTION,
    );
    const terms = childrenOf(entry, NS.atom, 'category')
      .map((category) => (category.getAttribute('term') ?? '').trim())
      .filter((term) => term !== '');
    const scope = text(entry, NS.mastodon, 'scope') as Visibility | null;
    const visibility: Visibility =
      scope && VISIBILITIES.includes(scope)
        ? scope
        : isPublic || mentioned.length === 0
          ? 'public'
          : 'direct';
    const alternate = links.find(
      (link) => link.getAttribute('rel') === 'alternate' && link.getAttribute('type') === 'text/html',
    );
    const url = alternate?.getAttribute('href') ?? null;
    const published = dateOf(text(entry, NS.atom, 'published'));
    const inReplyTo = childOf(entry, NS.thr, 'in-reply-to')?.getAttribute('ref') ?? null;
    return {
      uri,
      url: url && sameAuthority(url, author.uri) ? url : null,
      content: sanitizeRemoteHtml(html),
      spoilerText: (text(entry, NS.atom, 'summary') ?? '').slice(0, 1000),
      sensitive: terms.some((term) => term.toLowerCase() === 'nsfw'),
      visibility,
      language: childOf(entry, NS.atom, 'content')?.getAttribute('xml:lang') ?? null,
      inReplyToUri: inReplyTo,
      conversationUri: childOf(entry, NS.ostatus, 'conversation')?.getAttribute('ref') ?? null,
      published,
      updated: null,
      mentionUris: mentioned.slice(0, 100),
      tags: terms
        .filter((term) => term.toLowerCase() !== 'nsfw' && /^[\p{L}\p{N}_]{1,100}$/u.test(term))
        .slice(0, 50),
      attachments: [],
      poll: null,
      voteName: null,
    };
  }

  private async receiveFollow(
    author: Actor,
    target: Actor,
    entry: XmlElement,
    on: boolean,
  ): Promise<SalmonOutcome> {
    const object = childOf(entry, NS.activity, 'object');
    const objectUri = object ? (text(object, NS.atom, 'id') ?? text(object, NS.atom, 'uri')) : null;
    if (objectUri !== target.uri) throw new BadInput('The follow is not of this account');
    const { follows } = this.options.federation;
    if (!on) {
      await follows.remove(author.id, target.id);
      return 'unfollowed';
    }
    const [blocked] = await this.options.sequelize.query<{ yes: boolean }>(
      'SELECT EXISTS (SELECT 1 FROM blocks WHERE account_id = $1 AND target_account_id = $2) AS yes',
      { bind: [target.id, author.id], type: QueryTypes.SELECT },
    );
    if (blocked?.yes) throw new Forbidden('This action is not allowed');
    const uri = text(entry, NS.atom, 'id');
    await follows.follow(author.id, target.id, {
      uri: uri && sameAuthority(uri, author.uri) ? uri : null,
      accepted: !target.manuallyApprovesFollowers,
    });
    return 'followed';
  }
}

/** `post`, `http://activitystrea.ms/schema/1.0/post`, … as the schema URI. */
function normalVerb(verb: string): string {
  const trimmed = verb.trim();
  if (trimmed === 'unfollow' || trimmed === 'stop-following') return VERBS.unfollow;
  return /^https?:\/\//.test(trimmed) ? trimmed : `http://activitystrea.ms/schema/1.0/${trimmed}`;
}

function text(parent: XmlElement | null, ns: string, name: string): string | null {
  if (!parent) return null;
  const value = childOf(parent, ns, name)?.textContent?.trim();
  return value ? value : null;
}

function dateOf(value: string | null): Date | null {
  if (!value) return null;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? null : date;
}

function escapeText(value: string): string {
  return value.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * Whether an entry id belongs to the author's server: an http(s) id of the same origin, or a
 * `tag:` URI (the era's ids) naming the author's host.
 */
function sameAuthority(id: string, authorUri: string): boolean {
  const tag = /^tag:([^,]+),/.exec(id);
  if (tag) return (tag[1] as string).toLowerCase() === new URL(authorUri).hostname.toLowerCase();
  try {
    return sameOrigin(id, authorUri);
  } catch {
    return false;
  }
}
