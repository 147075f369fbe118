import type { SignatureFailure, SignatureScheme } from './signature.types.js';

/** A signature whose policy checks passed: only the key lookup and the crypto remain. */
export interface PreparedSignature {
  scheme: SignatureScheme;
  keyId: string;
  /** The algorithm the sender declared, if any. */
  declaredAlgorithm: string | undefined;
  signingString: string;
  signature: Uint8Array;
}

export interface Refusal {
  reason: SignatureFailure;
  /** For our logs: what exactly was wrong. */
  detail: string;
  keyId?: string;
}

export function refusal(reason: SignatureFailure, detail: string, keyId?: string): Refusal {
  return keyId === undefined ? { reason, detail } : { reason, detail, keyId };
}

export function isRefusal(value: PreparedSignature | Refusal): value is Refusal {
  return 'reason' in value;
}
