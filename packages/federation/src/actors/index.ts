export * from './actor.types.js';
export { defineActorModels, type ActorRow, type FollowRow } from './actor.model.js';
export { generateActorKeyPair, mainKeyId, type ActorKeyPair } from './actor.keys.js';
export * from './actor.store.js';
export { FollowStore, type Follow, type FollowListener, type FollowOptions } from './follow.store.js';
export { parseActorDocument, type ParsedActor } from './remote-actor.parser.js';
export {
  RemoteActorResolver,
  RemoteActorError,
  ACTIVITY_ACCEPT,
  type RemoteActorResolverOptions,
} from './remote-actors.js';
export { instanceActorSigner } from './instance-signer.js';
