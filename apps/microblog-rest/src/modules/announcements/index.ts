export * from './announcement.service.js';
