import type { Request, Router } from 'express';
import { randomUUID } from 'node:crypto';
import express from 'express';
import { BadInput, NotFound } from '@agora/core';
import type { JobQueue, Logger, PeriodicJob } from '@agora/core';
import type { Sequelize } from 'sequelize';
import type { ActorStore } from './actors/actor.store.js';
import type { Actor, ActorType, ActorUrls } from './actors/actor.types.js';
import { FollowStore, type Follow } from './actors/follow.store.js';
import { instanceActorSigner } from './actors/instance-signer.js';
import { RemoteActorResolver } from './actors/remote-actors.js';
import { DeliveryService, type DeliveryTiming } from './delivery/index.js';
import {
  actorDocumentHandler,
  createDiscoveryRouter,
  type ActorDocumentOptions,
  type DiscoveryRouterOptions,
} from './discovery/index.js';
import { createGuardedFetch, type GuardedFetch } from './fetch/index.js';
import { registerGenericHandlers } from './inbox/generic-handlers.js';
import { Inbox } from './inbox/inbox.js';
import type { DeliverPort } from './inbox/inbox.types.js';
import { DomainBlocks } from './moderation/domain-blocks.js';
import { sanitizeRemoteHtml } from './sanitize/index.js';

const AS_CONTEXT = 'https://www.w3.org/ns/activitystreams';
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
    });
  }

  /**
   * `actorId` (local) follows the actor with id `targetUri`: at once for a local target (pending if
   * it approves followers by hand), else a pending relation and a Follow delivered to the target's
   * inbox; its Accept (generic handler) completes it. Errors: NotFound, BadInput (self, not local).
   */
  async follow(actorId: string, targetUri: string): Promise<Follow> {
    const { actors } = this.options;
    const actor = await actors.findById(actorId);
    if (!actor?.local) throw new BadInput('Only a local actor can follow');
    const local = await actors.findByUri(targetUri);
    const target = local?.local ? local : await this.remoteActors.resolve(targetUri);
    if (target.id === actor.id) throw new BadInput('An actor cannot follow itself');
    if (target.suspended) throw new NotFound('Actor not found');
    if (target.local)
      return this.follows.follow(actor.id, target.id, { accepted: !target.manuallyApprovesFollowers });
    const existing = await this.follows.find(actor.id, target.id);
    if (existing) return existing;
    const uri = `${actor.uri}#follows/${randomUUID()}`;
    const follow = await this.follows.follow(actor.id, target.id, { uri, accepted: false });
    if (!target.inboxUrl) throw new BadInput('The actor has no inbox');
    await this.deliver(
      { '@context': AS_CONTEXT, id: uri, type: 'Follow', actor: actor.uri, object: target.uri },
      { senderActorId: actor.id, inboxes: [target.inboxUrl] },
    );
    return follow;
  }

  /** Ends a follow; a remote target is told with Undo(Follow). Returns whether one existed. */
  async unfollow(actorId: string, targetActorId: string): Promise<boolean> {
    const { actors } = this.options;
    const [actor, target, follow] = await Promise.all([
      actors.findById(actorId),
      actors.findById(targetActorId),
      this.follows.find(actorId, targetActorId),
    ]);
    if (!actor?.local || !target || !follow) return false;
    await this.follows.remove(actorId, targetActorId);
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
    }
    return true;
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
