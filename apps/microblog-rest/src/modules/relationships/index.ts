export * from './relationship.service.js';
export * from './relationship.types.js';
export * from './relationship-params.js';
