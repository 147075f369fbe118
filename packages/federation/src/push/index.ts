export {
  ATOM_CONTENT_TYPE,
  PUSH_DELIVER_JOB,
  PUSH_VERIFY_JOB,
  PushHub,
  type PushHubAnswer,
  type PushHubOptions,
  type PushHubRequest,
  type PushMode,
  type PushSubscription,
} from './push-hub.service.js';
export { createPushHubRouter } from './push-hub.router.js';
export {
  PushSubscriber,
  type PushCallbackAnswer,
  type PushContent,
  type PushSubscriberOptions,
  type RemoteSubscription,
  type SubscribeInput,
} from './push-subscriber.service.js';
export { createPushSubscriberRouter } from './push-subscriber.router.js';
export { oneEntryFeed } from './push.feed.js';
export { DEFAULT_LEASE_SECONDS, MAX_LEASE_SECONDS, MIN_LEASE_SECONDS } from './push.lease.js';
export { signPushBody, verifyPushSignature } from './push.signature.js';
