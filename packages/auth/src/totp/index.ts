export * from './totp.js';
export * from './recovery-codes.js';
