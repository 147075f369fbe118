export * from './config/index.js';
export * from './errors/index.js';
export * from './logger/index.js';
export * from './queue/index.js';
export * from './pubsub/index.js';
export * from './mail/index.js';
export * from './process/index.js';
export * from './counters/counter-registry.js';
