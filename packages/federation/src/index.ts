export * from './nodeinfo/index.js';
