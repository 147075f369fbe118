export * from './account.service.js';
