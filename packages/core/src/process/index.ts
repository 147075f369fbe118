export * from './home-page.js';
export * from './http-server.js';
export * from './main.js';
