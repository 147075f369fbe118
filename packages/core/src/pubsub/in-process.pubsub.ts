import { createLogger, type Logger } from '../logger/logger.js';
import { deliver, serialize, type PubSub, type PubSubHandler, type Unsubscribe } from './pubsub.port.js';

/** Pub/sub within one process (a single-process deployment, tests). Payloads make the same JSON round trip as across processes. */
export class InProcessPubSub implements PubSub {
  private readonly channels = new Map<string, Set<PubSubHandler>>();
  private readonly logger: Logger;
  private closed = false;

  constructor(options: { logger?: Logger } = {}) {
    this.logger = (options.logger ?? createLogger({ level: 'warn', name: 'pubsub' })).child({
      component: 'pubsub',
    });
  }

  async publish(channel: string, payload: unknown): Promise<void> {
    this.assertOpen();
    const json = serialize(channel, payload);
    const handlers = this.channels.get(channel);
    if (!handlers) return;
    // Each subscriber gets its own copy, as it would from another process.
    for (const handler of [...handlers]) deliver([handler], channel, JSON.parse(json), this.logger);
  }

  async subscribe(channel: string, handler: PubSubHandler): Promise<Unsubscribe> {
    this.assertOpen();
    let handlers = this.channels.get(channel);
    if (!handlers) {
      handlers = new Set();
      this.channels.set(channel, handlers);
    }
    // A wrapper, so the same function subscribed twice is two subscriptions.
    const subscription: PubSubHandler = (payload) => handler(payload);
    handlers.add(subscription);
    return async () => {
      const current = this.channels.get(channel);
      current?.delete(subscription);
      if (current?.size === 0) this.channels.delete(channel);
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    this.channels.clear();
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('PubSub is closed');
  }
}
