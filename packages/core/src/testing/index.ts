export * from './mail-folder.js';
