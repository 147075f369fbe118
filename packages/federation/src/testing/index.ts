export * from './fake-remote.js';
export * from './page-server.js';
