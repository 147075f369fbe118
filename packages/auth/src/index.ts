export * from './migrations/index.js';
export * from './passwords/index.js';
export * from './rate-limit/index.js';
export * from './roles/roles.js';
export * from './scopes/scopes.js';
export * from './sessions/index.js';
export * from './totp/index.js';
export * from './users/index.js';
