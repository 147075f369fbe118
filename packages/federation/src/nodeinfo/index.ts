export * from './nodeinfo.js';
