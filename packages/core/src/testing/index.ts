export * from './mail-folder.js';
export * from './system-tools.js';
export * from './job-queue-template.js';
export * from './raw-http.js';
