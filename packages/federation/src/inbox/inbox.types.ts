import type { Actor } from '../actors/actor.types.js';

/** An activity as received: JSON, already origin-checked against its signer. */
export type ActivityJson = Record<string, unknown>;

export interface InboxContext {
  activity: ActivityJson;
  /** The actor whose key signed the request (the activity's `actor`). */
  signer: Actor;
  /** The local actor whose own inbox received it; null for the shared inbox. */
  recipient: Actor | null;
}

export type InboxHandler = (context: InboxContext) => Promise<void>;

/** Sends an activity from a local actor to inboxes (the delivery pipeline, or a test double). */
export type DeliverPort = (
  activity: ActivityJson,
  options: { senderActorId: string; inboxes: string[] },
) => Promise<void>;

/** The id of an object given inline or by reference. */
export function idOf(value: unknown): string | null {
  if (typeof value === 'string') return value;
  if (typeof value === 'object' && value !== null && typeof (value as { id?: unknown }).id === 'string') {
    return (value as { id: string }).id;
  }
  return null;
}

/** The `type` of an inline object (first one when it is a list); null for references. */
export function typeOf(value: unknown): string | null {
  if (typeof value !== 'object' || value === null) return null;
  const type = (value as { type?: unknown }).type;
  if (typeof type === 'string') return type;
  if (Array.isArray(type) && typeof type[0] === 'string') return type[0];
  return null;
}
