export * from './contexts/index.js';
export * from './document.loader.js';
