export * from './filter.service.js';
export * from './notification.service.js';
export * from './notification.types.js';
