import { Internal } from '@agora/core';
import type { ActorStore, ActorUrlScheme } from '@agora/federation';

/** The reference's name for the instance's anonymous actor. */
export const ANONYMOUS_USERNAME = 'anonymous';

/**
 * The instance's anonymous actor (`config.anonymous.actorId`): the Person through which people without
 * an account participate in events. Created with the instance's first start, owned by no user, and
 * looked up once per process.
 */
export class AnonymousActor {
  private found: Promise<string> | undefined;

  constructor(
    private readonly actors: ActorStore,
    private readonly urls: ActorUrlScheme,
  ) {}

  /** The anonymous actor's id, created on first call. */
  id(): Promise<string> {
    this.found ??= this.ensure().catch((error: unknown) => {
      this.found = undefined;
      throw error;
    });
    return this.found;
  }

  private async ensure(): Promise<string> {
    const actor = await this.actors.ensureInstanceActor({
      type: 'Person',
      username: ANONYMOUS_USERNAME,
      urls: this.urls({ type: 'Person', username: ANONYMOUS_USERNAME }),
    });
    // A profile of somebody's must never act for anonymous people.
    if (actor.userId !== null || actor.type !== 'Person') {
      throw new Internal(`The local actor "${ANONYMOUS_USERNAME}" is not the instance's anonymous actor`);
    }
    return actor.id;
  }
}
