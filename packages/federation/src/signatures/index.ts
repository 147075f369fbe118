export * from './digest.js';
export * from './key-cache.js';
export * from './signature.types.js';
export {
  signRequest,
  signRequestAsync,
  parseCavageParameters,
  type AsyncBytesSigner,
  type CavageSignOptions,
} from './cavage.js';
export { signRequestRfc9421, type Rfc9421SignOptions } from './rfc9421.js';
export { verifyRequest } from './verify-request.js';
export { DEFAULT_MAX_AGE_SECONDS, DEFAULT_SKEW_SECONDS } from './time-window.js';
export type { CryptoAlgorithm } from './signature-algorithms.js';
export * from './origin.js';
