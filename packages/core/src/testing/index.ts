export * from './mail-folder.js';
export * from './system-tools.js';
