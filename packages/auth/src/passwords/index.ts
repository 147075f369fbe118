export * from './password-hash.js';
export * from './password-policy.js';
