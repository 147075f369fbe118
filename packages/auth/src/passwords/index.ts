export * from './password-hash.js';
export * from './password-policy.js';
export * from './password-hash.config.js';
