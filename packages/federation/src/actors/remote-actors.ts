import type { Logger } from '@agora/core';
import type { DomainBlocks } from '../moderation/domain-blocks.js';
import type { GuardedFetch } from '../fetch/index.js';
import type { KeyResolver, ResolvedKey } from '../signatures/index.js';
import type { ActorStore, RemoteActorInput } from './actor.store.js';
import type { Actor } from './actor.types.js';
import { parseActorDocument } from './remote-actor.parser.js';

export const ACTIVITY_ACCEPT =
  'application/activity+json, application/ld+json; profile="https://www.w3.org/ns/activitystreams"';

const DAY_MS = 24 * 60 * 60 * 1000;

export interface RemoteActorResolverOptions {
  actors: ActorStore;
  /** Signed by the instance actor when the app configures it so (authorized-fetch peers). */
  fetch: GuardedFetch;
  sanitize: (html: string) => string;
  logger: Logger;
  /** A cached remote actor is re-fetched after this long (a day, as the issue asks). */
  refreshAfterMs?: number;
  now?: () => Date;
  /** Called after a fetched remote actor is stored (e.g. to cache its images); failures are only logged. */
  onActorStored?: (actor: Actor) => void | Promise<void>;
  /** New actors of a silenced domain start silenced (`limited`). */
  domainBlocks?: Pick<DomainBlocks, 'silencedAt'>;
}

export class RemoteActorError extends Error {}

/** Finds remote actors: from the table while fresh, else from their origin through the guarded client. */
export class RemoteActorResolver {
  private readonly refreshAfterMs: number;
  private readonly now: () => Date;
  /** One fetch per URI at a time: concurrent activities from a new actor share it. */
  private readonly inFlight = new Map<string, Promise<Actor>>();
  private readonly storedHooks: Array<(actor: Actor) => void | Promise<void>> = [];

  constructor(private readonly options: RemoteActorResolverOptions) {
    this.refreshAfterMs = options.refreshAfterMs ?? DAY_MS;
    this.now = options.now ?? (() => new Date());
    if (options.onActorStored) this.storedHooks.push(options.onActorStored);
  }

  /** Adds an `onActorStored` hook after construction (the app's composition root wires it). */
  onActorStored(hook: (actor: Actor) => void | Promise<void>): void {
    this.storedHooks.push(hook);
  }

  /** The actor with this id; `refresh` forces a fetch (e.g. its key failed to verify). */
  async resolve(uri: string, options: { refresh?: boolean } = {}): Promise<Actor> {
    const known = await this.options.actors.findByUri(uri);
    if (known?.local) return known;
    const fresh = known?.fetchedAt && this.now().getTime() - known.fetchedAt.getTime() < this.refreshAfterMs;
    if (known && fresh && !options.refresh) return known;
    let pending = this.inFlight.get(uri);
    if (!pending) {
      pending = this.fetchActor(uri).finally(() => this.inFlight.delete(uri));
      this.inFlight.set(uri, pending);
    }
    try {
      return await pending;
    } catch (error) {
      // A stale copy beats nothing when the origin is briefly down (not for forced refreshes).
      if (known && !options.refresh) return known;
      throw error;
    }
  }

  /** The signature verifier's key lookup: keyId → owner and PEM, re-fetching on request. */
  keyResolver(): KeyResolver {
    return async (keyId, { refresh }) => {
      const actorUri = keyId.split('#')[0]!;
      try {
        const actor = await this.resolve(actorUri, { refresh });
        return actor.publicKeyPem
          ? ({ publicKeyPem: actor.publicKeyPem, owner: actor.uri } satisfies ResolvedKey)
          : null;
      } catch (error) {
        this.options.logger.info({ keyId, err: error }, 'could not resolve a signing key');
        return null;
      }
    };
  }

  private async fetchActor(uri: string): Promise<Actor> {
    const response = await this.options.fetch.get(uri, { headers: { accept: ACTIVITY_ACCEPT } });
    if (!response.ok) throw new RemoteActorError(`Fetching ${uri} answered ${response.status}`);
    const parsed = parseActorDocument(response.json(), this.options.sanitize);
    if (!parsed.ok) throw new RemoteActorError(parsed.reason);
    // The document must describe the URI we asked for (no actor may speak for another id).
    if (parsed.actor.uri !== uri) throw new RemoteActorError('The document describes another actor');
    return this.store(parsed.actor);
  }

  /**
   * Stores a remote actor's (already verified and parsed) document and tells the hooks: every way a
   * remote profile enters — a fetch, or an Update in the inbox — goes through here.
   */
  async store(input: RemoteActorInput): Promise<Actor> {
    const silencedAt = (await this.options.domainBlocks?.silencedAt(input.domain)) ?? null;
    const stored = await this.options.actors.upsertRemote({ ...input, silencedAt });
    for (const hook of this.storedHooks) {
      await Promise.resolve()
        .then(() => hook(stored))
        .catch((error: unknown) => this.options.logger.warn({ err: error }, 'an actor-stored hook failed'));
    }
    return stored;
  }
}
