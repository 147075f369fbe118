export * from './config/index.js';
export * from './errors/index.js';
export * from './logger/index.js';
