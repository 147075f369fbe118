export * from './limits/limits.js';
