import type { Logger } from '@agora/core';
import type { ActorStore, RemoteActorInput } from '../actors/actor.store.js';
import { ACTOR_TYPES, type Actor } from '../actors/actor.types.js';
import type { FollowStore } from '../actors/follow.store.js';
import { parseActorDocument } from '../actors/remote-actor.parser.js';
import type { Inbox } from './inbox.js';
import { idOf, typeOf, type ActivityJson, type DeliverPort } from './inbox.types.js';

export interface GenericHandlerOptions {
  actors: ActorStore;
  follows: FollowStore;
  deliver: DeliverPort;
  sanitize: (html: string) => string;
  logger: Logger;
  /** Stores a remote actor's updated profile (default: straight into the actor store). */
  storeRemoteActor?: (input: RemoteActorInput) => Promise<Actor>;
  /** Whether the follower may follow the target at all (blocks); a refused Follow is answered with Reject. */
  mayFollow?: (follower: Actor, target: Actor) => Promise<boolean>;
  /** Told when a remote actor blocks a local one (`uri`: the Block's id) and when it undoes that. */
  onBlock?: (block: { blocker: Actor; target: Actor; uri: string | null }) => Promise<void>;
  onUnblock?: (block: { blocker: Actor; target: Actor }) => Promise<void>;
  /** Told about each new follow of a local actor (notifications); optional. */
  onFollow?: (follow: { follower: Actor; target: Actor; accepted: boolean }) => Promise<void>;
}

const AS_CONTEXT = 'https://www.w3.org/ns/activitystreams';

/**
 * The handlers every service needs, whatever it publishes: follows and their answers, profile
 * updates and deletions, and blocks. Apps add their own types with `inbox.on(…)`.
 */
export function registerGenericHandlers(inbox: Inbox, options: GenericHandlerOptions): void {
  const { actors, follows, deliver, logger } = options;

  const localTarget = async (value: unknown): Promise<Actor | null> => {
    const uri = idOf(value);
    const actor = uri ? await actors.findByUri(uri) : null;
    return actor?.local && !actor.suspended ? actor : null;
  };

  /** The follow an Accept/Reject answers: by the Follow's id, else by who follows whom. */
  const answeredFollow = async (activity: ActivityJson, signer: Actor) => {
    const objectId = idOf(activity.object);
    const byUri = objectId ? await follows.findByUri(objectId) : null;
    if (byUri) return byUri.targetActorId === signer.id ? byUri : null;
    const object = activity.object as Record<string, unknown> | undefined;
    if (typeOf(object) !== 'Follow') return null;
    const follower = await localTarget(object?.actor);
    return follower ? follows.find(follower.id, signer.id) : null;
  };

  inbox.on('Follow', async ({ activity, signer }) => {
    const target = await localTarget(activity.object);
    if (!target) return;
    if (options.mayFollow && !(await options.mayFollow(signer, target))) {
      if (signer.inboxUrl) {
        await deliver(
          {
            '@context': AS_CONTEXT,
            id: `${target.uri}#rejects/follows/${encodeURIComponent(String(activity.id ?? signer.id))}`,
            type: 'Reject',
            actor: target.uri,
            object: { id: activity.id, type: 'Follow', actor: signer.uri, object: target.uri },
          },
          { senderActorId: target.id, inboxes: [signer.inboxUrl] },
        );
      }
      return;
    }
    const accepted = !target.manuallyApprovesFollowers;
    const follow = await follows.follow(signer.id, target.id, {
      uri: typeof activity.id === 'string' ? activity.id : null,
      accepted,
    });
    if (accepted && signer.inboxUrl) {
      await deliver(
        {
          '@context': AS_CONTEXT,
          id: `${target.uri}#accepts/follows/${follow.id}`,
          type: 'Accept',
          actor: target.uri,
          object: { id: activity.id, type: 'Follow', actor: signer.uri, object: target.uri },
        },
        { senderActorId: target.id, inboxes: [signer.inboxUrl] },
      );
    }
    await options.onFollow?.({ follower: signer, target, accepted });
  });

  inbox.on('Accept', async ({ activity, signer }) => {
    const follow = await answeredFollow(activity, signer);
    if (follow) await follows.accept(follow.id);
  });

  inbox.on('Reject', async ({ activity, signer }) => {
    const follow = await answeredFollow(activity, signer);
    if (follow) await follows.remove(follow.actorId, follow.targetActorId);
  });

  inbox.on('Undo:Follow', async ({ activity, signer }) => {
    const target = await localTarget((activity.object as Record<string, unknown>).object);
    if (target) await follows.remove(signer.id, target.id);
  });
  // `Undo` of a Follow given by reference only.
  inbox.on('Undo', async ({ activity, signer }) => {
    const objectId = idOf(activity.object);
    const follow = objectId ? await follows.findByUri(objectId) : null;
    if (follow && follow.actorId === signer.id) await follows.remove(follow.actorId, follow.targetActorId);
  });

  inbox.on('Update', async ({ activity, signer }) => {
    const object = activity.object;
    if (!(ACTOR_TYPES as readonly string[]).includes(typeOf(object) ?? '') || idOf(object) !== signer.uri)
      return;
    const parsed = parseActorDocument(object, options.sanitize);
    if (!parsed.ok)
      return void logger.info({ reason: parsed.reason, actor: signer.uri }, 'ignored an actor update');
    await (options.storeRemoteActor ?? ((input) => actors.upsertRemote(input)))(parsed.actor);
  });

  inbox.on('Delete', async ({ activity, signer }) => {
    // Only an actor's own deletion is generic; deleted objects are the apps' (their own handlers).
    if (idOf(activity.object) === signer.uri && !signer.local) await actors.remove(signer.id);
  });

  inbox.on('Block', async ({ activity, signer }) => {
    const target = await localTarget(activity.object);
    if (!target) return;
    // Advisory on our side, but nobody keeps following across a block.
    await follows.remove(signer.id, target.id);
    await follows.remove(target.id, signer.id);
    await options.onBlock?.({
      blocker: signer,
      target,
      uri: typeof activity.id === 'string' ? activity.id : null,
    });
  });

  inbox.on('Undo:Block', async ({ activity, signer }) => {
    const target = await localTarget((activity.object as Record<string, unknown>).object);
    if (target) await options.onUnblock?.({ blocker: signer, target });
  });
}
