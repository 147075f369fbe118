import type { KeyObject } from 'node:crypto';

/** What the pool posts to a signing thread: one POST to sign with one parsed key. */
export interface SignTask {
  id: number;
  url: string;
  /** Sent with every task: a cloned KeyObject shares the parsed key, so nothing is parsed again. */
  key: { keyId: string; privateKey: KeyObject };
  headers: Record<string, string>;
  body: string;
}

/** A thread's answer: every header to send, or why signing refused (never key material); id 0 once loaded. */
export type SignReply =
  { id: number; headers: Record<string, string> } | { id: number; error: string } | { id: 0; ready: true };
