export * from './roles/roles.js';
export * from './scopes/scopes.js';
