export * from './instance.service.js';
export * from './instance-documents.js';
export * from './instance-stats.js';
