export * from './fake-remote.js';
