import type { Logger } from '../logger/logger.js';

export type Unsubscribe = () => Promise<void>;

/** Fan-out of small JSON messages to every current subscriber of a channel; nothing is stored. */
export interface PubSub {
  /** `payload` must be JSON-serialisable; subscribers receive its JSON round trip. */
  publish(channel: string, payload: unknown): Promise<void>;
  /** Resolves once messages published from now on will be delivered. */
  subscribe(channel: string, handler: (payload: unknown) => void): Promise<Unsubscribe>;
  close(): Promise<void>;
}

export type PubSubHandler = (payload: unknown) => void;

/** Calls every handler; one that throws (or rejects) is logged and does not keep the others from running. */
export function deliver(
  handlers: Iterable<PubSubHandler>,
  channel: string,
  payload: unknown,
  logger: Logger,
): void {
  const report = (err: unknown) =>
    logger.error(
      { channel, error: err instanceof Error ? err.message : String(err) },
      'pub/sub handler failed',
    );
  // A copy, so handlers that (un)subscribe while we iterate do not change this delivery.
  for (const handler of [...handlers]) {
    try {
      const result: unknown = handler(payload);
      if (result instanceof Promise) result.catch(report);
    } catch (err) {
      report(err);
    }
  }
}

/** The JSON text of a payload, or a clear error for what JSON cannot carry. */
export function serialize(channel: string, payload: unknown): string {
  const json = JSON.stringify(payload);
  if (json === undefined) {
    throw new TypeError(`pub/sub channel "${channel}": payload is not JSON-serialisable`);
  }
  return json;
}
