export * from './http-server.js';
export * from './main.js';
