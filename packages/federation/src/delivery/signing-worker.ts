import type { KeyObject } from 'node:crypto';
import { parentPort } from 'node:worker_threads';
import { signBytes, type CryptoAlgorithm } from '../signatures/signature-algorithms.js';

/** Strings to sign with one key, as the event loop hands them to a signing thread. */
export interface SigningBatch {
  id: number;
  algorithm: CryptoAlgorithm;
  key: KeyObject;
  data: string[];
}

/** The signatures of a batch, in its order, or why it could not be signed. */
export type SigningAnswer = { id: number; signatures: Uint8Array[] } | { id: number; error: string };

// A signing thread (signing-threads.ts): signs each batch it is given, one after the other.
parentPort?.on('message', (batch: SigningBatch) => {
  let answer: SigningAnswer;
  try {
    answer = {
      id: batch.id,
      signatures: batch.data.map((text) => signBytes(batch.algorithm, batch.key, text)),
    };
  } catch (error) {
    answer = { id: batch.id, error: error instanceof Error ? error.message : 'Signing failed' };
  }
  parentPort?.postMessage(answer);
});
