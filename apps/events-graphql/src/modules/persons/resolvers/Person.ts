import type { ActorType as StoredActorType } from '@agora/federation';
import type { ActorType, PersonResolvers } from '../../../graphql/resolvers-types.generated.js';

const ACTOR_TYPES: Record<StoredActorType, ActorType> = {
  Person: 'PERSON',
  Group: 'GROUP',
  Application: 'APPLICATION',
  Organization: 'ORGANIZATION',
  Service: 'SERVICE',
};

// id, domain, local, summary, suspended, manuallyApprovesFollowers and the counts are read as stored;
// avatar, banner and mediaSize are the media module's.
export const Person: PersonResolvers = {
  type: (actor) => ACTOR_TYPES[actor.type],
  preferredUsername: (actor) => actor.username,
  name: (actor) => actor.displayName,
  url: (actor) => actor.url ?? actor.uri,
  /** The profile's private feed tokens, for its owner only. */
  feedTokens: async (actor, _args, ctx) => {
    const viewer = await ctx.viewer();
    if (!viewer || !actor.userId || viewer.id !== actor.userId) return null;
    return ctx.loaders.users.feedTokensOfActor.load(actor.id);
  },
  /** The owning account, for its owner and instance moderators only. */
  user: async (actor, _args, ctx) => {
    const viewer = await ctx.viewer();
    if (!actor.userId || !viewer) return null;
    if (viewer.id === actor.userId) return viewer;
    if (!ctx.app.users.canModerate(viewer)) return null;
    return ctx.loaders.users.records.load(actor.userId);
  },
};
