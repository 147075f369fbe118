export * from './fetch.errors.js';
export * from './guarded-fetch.js';
export { forbiddenRange, PrivateHostAllowList } from './address.policy.js';
export * from './page-head.js';
