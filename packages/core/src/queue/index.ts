export * from './queue.port.js';
export * from './pg-boss.queue.js';
export * from './periodic-jobs.js';
