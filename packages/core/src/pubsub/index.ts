export type { PubSub, Unsubscribe } from './pubsub.port.js';
export * from './in-process.pubsub.js';
export * from './pg.pubsub.js';
