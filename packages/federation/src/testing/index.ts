export * from './fake-remote.js';
export * from './page-server.js';
export * from '../delivery/loopback-inbox.testing.js';
