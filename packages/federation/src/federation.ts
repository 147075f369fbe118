import type { Request, Router } from 'express';
import { randomUUID } from 'node:crypto';
import express from 'express';
import { BadInput, NotFound } from '@agora/core';
import type { JobQueue, Logger, PeriodicJob } from '@agora/core';
import type { Sequelize } from 'sequelize';
import type { ActorStore } from './actors/actor.store.js';
import type { Actor, ActorType, ActorUrls } from './actors/actor.types.js';
import { FollowStore, type Follow, type FollowOptions } from './actors/follow.store.js';
import { instanceActorSigner } from './actors/instance-signer.js';
import { RemoteActorError, RemoteActorResolver } from './actors/remote-actors.js';
import { DeliveryService, type DeliveryTiming } from './delivery/index.js';
import {
  actorDocumentHandler,
  createDiscoveryRouter,
  type ActorDocumentOptions,
  type DiscoveryRouterOptions,
} from './discovery/index.js';
import { createGuardedFetch, FetchError, type GuardedFetch } from './fetch/index.js';
import { registerGenericHandlers } from './inbox/generic-handlers.js';
import { Inbox } from './inbox/inbox.js';
import type { DeliverPort } from './inbox/inbox.types.js';
import { DomainBlocks } from './moderation/domain-blocks.js';
import { sanitizeRemoteHtml } from './sanitize/index.js';
import { verifyRequest } from './signatures/index.js';

const AS_CONTEXT = 'https://www.w3.org/ns/activitystreams';

/** Whether `follower` (remote) may follow `target` (local); false refuses the Follow. */
export type FollowPolicy = (follower: Actor, target: Actor) => Promise<boolean>;

/**
 * Reaches remote actors that have no ActivityPub inbox (the microblog's OStatus-only accounts):
 * `follow` and `unfollow` are told after the follow row is written or removed.
 */
export interface FollowTransport {
  /** Whether this transport reaches `target` (a remote actor without an inbox). */
  reaches(target: Actor): boolean;
  follow(actor: Actor, target: Actor, follow: Follow): Promise<void>;
  unfollow(actor: Actor, target: Actor, follow: Follow): Promise<void>;
}

/**
 * Finds a remote account whose WebFinger document names no ActivityPub actor (the JRD is untrusted
 * remote input); null when it is not one this resolver knows how to use.
 */
export type AccountResolver = (jrd: { links?: unknown[] }, address: string) => Promise<Actor | null>;

/** What an app does when a remote actor blocks (or unblocks) a local one. */
export interface BlockListener {
  blocked(blocker: Actor, target: Actor, uri: string | null): Promise<void>;
  unblocked(blocker: Actor, target: Actor): Promise<void>;
}
const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;

/** Queue names of `Federation.maintenanceJobs()`. */
export const FEDERATION_JOBS = {
  purgeInboxReceipts: 'federation.purge-inbox-receipts',
  generateMissingKeys: 'federation.generate-missing-keys',
} as const;

export interface FederationOptions {
  sequelize: Sequelize;
  queue: JobQueue;
  logger: Logger;
  actors: ActorStore;
  publicUrl: string;
  userAgent: string;
  /** Hosts that may resolve to private addresses (tests and LAN setups federate over loopback). */
  allowPrivateHosts?: readonly string[];
  /** The instance's own actor: `/actor` (microblog) or `/relay` (events). */
  instanceActor: { type: ActorType; username: string; urls: ActorUrls };
  /** How actor documents look: the flavour of the service's reference. */
  documents: ActorDocumentOptions | ((actor: Actor) => ActorDocumentOptions | Promise<ActorDocumentOptions>);
  webfinger?: Pick<DiscoveryRouterOptions, 'subscribeTemplate' | 'extraLinks'>;
  deliveryTiming?: DeliveryTiming;
}

/**
 * Everything a service needs to federate, built once in its composition root: the guarded client
 * (signed by the instance actor), remote actors, domain blocks, follows, the inbox with the generic
 * handlers, and the delivery pipeline. Apps add routes with `routes()` and workers with `startWorkers()`.
 */
export class Federation {
  readonly fetch: GuardedFetch;
  readonly domainBlocks: DomainBlocks;
  readonly follows: FollowStore;
  readonly remoteActors: RemoteActorResolver;
  readonly inbox: Inbox;
  readonly delivery: DeliveryService;
  /** Sends from a local actor to inboxes through the durable queue. */
  readonly deliver: DeliverPort;
  private instanceActorPromise: Promise<Actor> | undefined;
  /** Hosts named in `allowPrivateHosts`: test and LAN peers, which may answer WebFinger over plain http. */
  private readonly plainHttpHosts: Set<string>;
  private readonly followPolicies: FollowPolicy[] = [];
  private readonly blockListeners: BlockListener[] = [];
  private readonly followTransports: FollowTransport[] = [];
  private readonly accountResolvers: AccountResolver[] = [];

  constructor(private readonly options: FederationOptions) {
    const { sequelize, queue, logger, actors } = options;
    const publicUrl = new URL(options.publicUrl);
    this.domainBlocks = new DomainBlocks(sequelize);
    this.fetch = createGuardedFetch({
      userAgent: options.userAgent,
      allowPrivateHosts: options.allowPrivateHosts ?? [],
      blockedHosts: (host) => this.domainBlocks.isSuspendedCached(host),
      sign: instanceActorSigner(actors, async () => (await this.instanceActor()).id),
    });
    this.plainHttpHosts = new Set(
      (options.allowPrivateHosts ?? [])
        .filter((entry) => !entry.includes('/'))
        .map((entry) => entry.toLowerCase()),
    );
    this.follows = new FollowStore(sequelize);
    this.remoteActors = new RemoteActorResolver({
      actors,
      domainBlocks: this.domainBlocks,
      fetch: this.fetch,
      sanitize: sanitizeRemoteHtml,
      logger,
    });
    this.inbox = new Inbox({
      sequelize,
      actors,
      remoteActors: this.remoteActors,
      domainBlocks: this.domainBlocks,
      queue,
      logger: logger.child({ component: 'inbox' }),
      scheme: publicUrl.protocol === 'https:' ? 'https' : 'http',
      host: publicUrl.host,
    });
    this.delivery = new DeliveryService({
      queue,
      sequelize,
      actors,
      fetch: this.fetch,
      logger,
      ...(options.deliveryTiming ? { timing: options.deliveryTiming } : {}),
    });
    this.deliver = async (activity, { senderActorId, inboxes }) => {
      await this.delivery.deliver(activity, {
        senderActorId,
        recipients: inboxes.map((inboxUrl) => ({ inboxUrl })),
      });
    };
    registerGenericHandlers(this.inbox, {
      actors,
      follows: this.follows,
      deliver: this.deliver,
      sanitize: sanitizeRemoteHtml,
      logger,
      // Through the resolver, so its hooks (e.g. caching a new avatar) see inbox updates too.
      storeRemoteActor: (input) => this.remoteActors.store(input),
      onBlock: async ({ blocker, target, uri }) => {
        for (const listener of this.blockListeners) await listener.blocked(blocker, target, uri);
      },
      onUnblock: async ({ blocker, target }) => {
        for (const listener of this.blockListeners) await listener.unblocked(blocker, target);
      },
      mayFollow: async (follower, target) => {
        for (const policy of this.followPolicies) if (!(await policy(follower, target))) return false;
        return true;
      },
    });
  }

  /**
   * Adds a rule an incoming Follow must pass (e.g. the target has not blocked the follower); a refused
   * Follow is answered with Reject and stored nowhere. The app's composition root wires it.
   */
  addFollowPolicy(policy: FollowPolicy): void {
    this.followPolicies.push(policy);
  }

  /** Told of incoming Block and Undo(Block) from remote actors (after the follows between them ended). */
  addBlockListener(listener: BlockListener): void {
    this.blockListeners.push(listener);
  }

  /** Adds a way to follow remote actors without an inbox (the microblog's OStatus, issue 16 §6). */
  addFollowTransport(transport: FollowTransport): void {
    this.followTransports.push(transport);
  }

  /** Adds a resolver of `user@domain` addresses whose WebFinger names no ActivityPub actor. */
  addAccountResolver(resolver: AccountResolver): void {
    this.accountResolvers.push(resolver);
  }

  /**
   * `actorId` (local) follows the actor with id `targetUri`: at once for a local target (pending if
   * it approves followers by hand), else a pending relation and a Follow delivered to the target's
   * inbox; its Accept (generic handler) completes it. A repeated follow only updates its options.
   * Errors: NotFound, BadInput (self, not local).
   */
  async follow(actorId: string, targetUri: string, options: FollowOptions = {}): Promise<Follow> {
    const { actors } = this.options;
    const actor = await actors.findById(actorId);
    if (!actor?.local) throw new BadInput('Only a local actor can follow');
    const local = await actors.findByUri(targetUri);
    const target = local?.local ? local : await this.remoteActors.resolve(targetUri);
    if (target.id === actor.id) throw new BadInput('An actor cannot follow itself');
    if (target.suspended) throw new NotFound('Actor not found');
    if (target.local)
      return this.follows.follow(actor.id, target.id, {
        ...options,
        accepted: !target.manuallyApprovesFollowers,
      });
    const existing = await this.follows.find(actor.id, target.id);
    if (existing)
      return this.follows.follow(actor.id, target.id, { ...options, accepted: existing.accepted });
    if (!target.inboxUrl) {
      // No inbox: an app's transport (OStatus) may reach it; such follows need no Accept.
      const transport = this.followTransports.find((candidate) => candidate.reaches(target));
      if (!transport) throw new BadInput('The actor has no inbox');
      const follow = await this.follows.follow(actor.id, target.id, {
        ...options,
        uri: `${actor.uri}#follows/${randomUUID()}`,
        accepted: true,
      });
      await transport.follow(actor, target, follow);
      return follow;
    }
    const uri = `${actor.uri}#follows/${randomUUID()}`;
    const follow = await this.follows.follow(actor.id, target.id, { ...options, uri, accepted: false });
    await this.deliver(
      { '@context': AS_CONTEXT, id: uri, type: 'Follow', actor: actor.uri, object: target.uri },
      { senderActorId: actor.id, inboxes: [target.inboxUrl] },
    );
    return follow;
  }

  /** Ends a follow (or a pending request); a remote target is told with Undo(Follow). Returns whether one existed. */
  async unfollow(actorId: string, targetActorId: string): Promise<boolean> {
    const { actors } = this.options;
    const [actor, target] = await Promise.all([actors.findById(actorId), actors.findById(targetActorId)]);
    if (!actor?.local || !target) return false;
    const follow = await this.follows.remove(actorId, targetActorId);
    if (!follow) return false;
    if (!target.local && target.inboxUrl) {
      const followUri = follow.uri ?? `${actor.uri}#follows/${follow.id}`;
      await this.deliver(
        {
          '@context': AS_CONTEXT,
          id: `${followUri}/undo`,
          type: 'Undo',
          actor: actor.uri,
          object: { id: followUri, type: 'Follow', actor: actor.uri, object: target.uri },
        },
        { senderActorId: actor.id, inboxes: [target.inboxUrl] },
      );
    } else if (!target.local) {
      const transport = this.followTransports.find((candidate) => candidate.reaches(target));
      await transport?.unfollow(actor, target, follow);
    }
    return true;
  }

  /**
   * `targetActorId` (local) accepts the pending follow of `followerActorId`; a remote follower is told
   * with Accept(Follow). Returns the follow, or null when there was no such request.
   */
  async acceptFollow(targetActorId: string, followerActorId: string): Promise<Follow | null> {
    const pending = await this.follows.find(followerActorId, targetActorId);
    if (!pending) return null;
    const follow = await this.follows.accept(pending.id);
    if (follow) await this.answerFollow('Accept', follow);
    return follow;
  }

  /**
   * `targetActorId` (local) refuses the follow (pending or not) of `followerActorId`; a remote
   * follower is told with Reject(Follow). Returns whether there was one.
   */
  async rejectFollow(targetActorId: string, followerActorId: string): Promise<boolean> {
    const follow = await this.follows.remove(followerActorId, targetActorId);
    if (follow) await this.answerFollow('Reject', follow);
    return follow !== null;
  }

  /**
   * After `actorId` (local) blocked `targetActorId`: neither follows the other any more (each ended
   * as unfollow and reject would), and a remote target is told with Block.
   */
  async block(actorId: string, targetActorId: string): Promise<void> {
    await this.unfollow(actorId, targetActorId);
    await this.rejectFollow(actorId, targetActorId);
    await this.sendToRemote(actorId, targetActorId, (actor, target) => ({
      '@context': AS_CONTEXT,
      id: `${actor.uri}#blocks/${target.id}`,
      type: 'Block',
      actor: actor.uri,
      object: target.uri,
    }));
  }

  /** After `actorId` (local) unblocked `targetActorId`: a remote target is told with Undo(Block). */
  async unblock(actorId: string, targetActorId: string): Promise<void> {
    await this.sendToRemote(actorId, targetActorId, (actor, target) => ({
      '@context': AS_CONTEXT,
      id: `${actor.uri}#blocks/${target.id}/undo`,
      type: 'Undo',
      actor: actor.uri,
      object: { id: `${actor.uri}#blocks/${target.id}`, type: 'Block', actor: actor.uri, object: target.uri },
    }));
  }

  /**
   * The remote actor `user@domain` (or `acct:user@domain`), found through the guarded client:
   * WebFinger on its host, then its actor document. Errors: NotFound when the host does not know
   * the name or answers with something unusable, BadInput for a malformed address.
   */
  async resolveAccount(address: string): Promise<Actor> {
    const match = /^(?:acct:)?@?([^@\s/]+)@([^@\s/?#]+)$/i.exec(address.trim());
    if (!match) throw new BadInput('The address is not of the form user@domain');
    const [, username, host] = match as unknown as [string, string, string];
    const domain = host.toLowerCase();
    const known = await this.options.actors.findByUsername(username, domain);
    if (known && !known.local) return this.remoteActors.resolve(known.uri);
    const resource = `acct:${username}@${domain}`;
    const jrd = await this.webfinger(domain, resource);
    const self = Array.isArray(jrd?.links)
      ? jrd.links.find(
          (link): link is { href: string } =>
            typeof link === 'object' &&
            link !== null &&
            (link as { rel?: unknown }).rel === 'self' &&
            typeof (link as { href?: unknown }).href === 'string' &&
            /^application\/(activity\+json|ld\+json)/.test(String((link as { type?: unknown }).type ?? '')),
        )
      : undefined;
    if (!self) {
      for (const resolver of this.accountResolvers) {
        const found = jrd ? await resolver(jrd, resource) : null;
        if (found) return found;
      }
      throw new NotFound('Record not found');
    }
    try {
      return await this.remoteActors.resolve(self.href);
    } catch (error) {
      if (error instanceof RemoteActorError || error instanceof FetchError)
        throw new NotFound('Record not found');
      throw error;
    }
  }

  /** The JRD of `resource` from `host` over https (http only for hosts allowed as private: tests, LAN peers). */
  private async webfinger(host: string, resource: string): Promise<{ links?: unknown[] } | null> {
    const query = `/.well-known/webfinger?resource=${encodeURIComponent(resource)}`;
    const plain = this.plainHttpHosts.has(host) || this.plainHttpHosts.has(host.replace(/:\d+$/, ''));
    const schemes = plain ? ['https', 'http'] : ['https'];
    for (const scheme of schemes) {
      try {
        const response = await this.fetch.get(`${scheme}://${host}${query}`, {
          headers: { accept: 'application/jrd+json, application/json' },
          signed: false,
        });
        if (!response.ok) return null;
        const body = response.json() as unknown;
        return typeof body === 'object' && body !== null ? (body as { links?: unknown[] }) : null;
      } catch (error) {
        if (!(error instanceof FetchError)) throw error;
        if (scheme === schemes.at(-1)) return null;
      }
    }
    return null;
  }

  /** Accept or Reject of a follow of a local actor, delivered to a remote follower. */
  private async answerFollow(type: 'Accept' | 'Reject', follow: Follow): Promise<void> {
    await this.sendToRemote(follow.targetActorId, follow.actorId, (target, follower) => ({
      '@context': AS_CONTEXT,
      id: `${target.uri}#${type === 'Accept' ? 'accepts' : 'rejects'}/follows/${follow.id}`,
      type,
      actor: target.uri,
      object: { id: follow.uri ?? undefined, type: 'Follow', actor: follower.uri, object: target.uri },
    }));
  }

  /** Delivers the activity built from (local sender, remote recipient); nothing when either side does not fit. */
  private async sendToRemote(
    senderId: string,
    recipientId: string,
    build: (sender: Actor, recipient: Actor) => Record<string, unknown>,
  ): Promise<void> {
    const { actors } = this.options;
    const [sender, recipient] = await Promise.all([actors.findById(senderId), actors.findById(recipientId)]);
    if (!sender?.local || !recipient || recipient.local || !recipient.inboxUrl) return;
    await this.deliver(build(sender, recipient), { senderActorId: sender.id, inboxes: [recipient.inboxUrl] });
  }

  /**
   * The actor whose key signed a GET (authorized fetch), or null when it is unsigned, does not verify
   * or is suspended. Keys are resolved (and remote actors stored) through the package's resolver.
   */
  async signedFetcher(request: {
    method: string;
    url: string;
    headers: Record<string, string | string[] | undefined>;
  }): Promise<Actor | null> {
    if (request.headers.signature === undefined && request.headers['signature-input'] === undefined)
      return null;
    const verified = await verifyRequest(request, this.remoteActors.keyResolver(), {
      scheme: this.options.publicUrl.startsWith('https:') ? 'https' : 'http',
    });
    if (!verified.ok) {
      this.options.logger.info({ reason: verified.reason, keyId: verified.keyId }, 'refused a signed fetch');
      return null;
    }
    const actor = await this.options.actors.findByUri(verified.owner);
    return actor && !actor.suspended ? actor : null;
  }

  /** The instance actor, created (with keys) on first use. */
  instanceActor(): Promise<Actor> {
    this.instanceActorPromise ??= this.options.actors
      .ensureInstanceActor(this.options.instanceActor)
      .catch((error) => {
        this.instanceActorPromise = undefined;
        throw error;
      });
    return this.instanceActorPromise;
  }

  /**
   * Discovery, actor documents, the instance actor's document and the inboxes. `actorPath` is the
   * Express path of a local actor's id (`/@:name` or `/users/:name`), with a `name` parameter.
   */
  routes(options: { actorPath: string; instanceActorPath: string }): Router {
    const router = express.Router();
    const { actors } = this.options;
    const withKeys = async (actor: Actor | null): Promise<Actor | null> => {
      if (!actor?.local || actor.publicKeyPem) return actor;
      await actors.ensureKeys(actor.id);
      return actors.findById(actor.id);
    };
    const byName = (req: Request) => actors.findByUsername(String(req.params.name), null).then(withKeys);
    router.use(
      createDiscoveryRouter({
        publicUrl: this.options.publicUrl,
        actors,
        ...this.options.webfinger,
      }),
    );
    router.get(
      options.instanceActorPath,
      actorDocumentHandler({
        lookup: () => this.instanceActor().then(withKeys),
        document: this.options.documents,
      }),
    );
    router.get(options.actorPath, actorDocumentHandler({ lookup: byName, document: this.options.documents }));
    router.use(
      this.inbox.router({
        sharedInboxPath: '/inbox',
        actorInboxPath: `${options.actorPath}/inbox`,
        findRecipient: byName,
      }),
    );
    return router;
  }

  /**
   * The package's housekeeping, for the app's periodic jobs (worker and all roles): inbox receipts past
   * the replay window, and key pairs for local actors whose key job was lost.
   */
  maintenanceJobs(): PeriodicJob[] {
    return [
      {
        name: FEDERATION_JOBS.purgeInboxReceipts,
        periodMs: HOUR_MS,
        run: () => this.inbox.purgeReceipts(),
      },
      {
        name: FEDERATION_JOBS.generateMissingKeys,
        periodMs: 10 * MINUTE_MS,
        run: () => this.options.actors.generateMissingKeys(),
      },
    ];
  }

  /** Inbox handlers, deliveries and key generation: worker and all roles (no-ops on web). */
  async startWorkers(): Promise<void> {
    await this.domainBlocks.load();
    await this.inbox.registerWorker();
    await this.delivery.registerWorker();
  }

  close(): void {
    this.fetch.close();
    void this.delivery.close();
  }
}
