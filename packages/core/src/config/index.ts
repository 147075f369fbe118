export * from './load.js';
export * from './service.js';
