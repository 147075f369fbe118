import type { PubSub } from '@agora/core';

/** Messages kept for a subscriber that reads slower than they arrive; older ones are dropped past it. */
const MAX_PENDING = 100;

/**
 * The messages of a pub/sub channel as the async iterator a GraphQL `subscribe` resolver returns.
 * It resolves once the channel is listened to (messages published from then on arrive, whatever
 * process publishes them), and stops listening when the client unsubscribes or disconnects.
 */
export async function pubsubEvents<T extends object>(
  pubsub: PubSub,
  channel: string,
): Promise<AsyncIterableIterator<T>> {
  const pending: T[] = [];
  let waiting: ((result: IteratorResult<T>) => void) | undefined;
  let done = false;
  const unsubscribe = await pubsub.subscribe(channel, (payload) => {
    if (done || payload === null || typeof payload !== 'object') return;
    if (waiting) {
      const resolve = waiting;
      waiting = undefined;
      resolve({ value: payload as T, done: false });
    } else {
      pending.push(payload as T);
      if (pending.length > MAX_PENDING) pending.shift();
    }
  });
  const finish = async (): Promise<IteratorResult<T>> => {
    if (!done) {
      done = true;
      pending.length = 0;
      waiting?.({ value: undefined, done: true });
      waiting = undefined;
      await unsubscribe();
    }
    return { value: undefined, done: true };
  };
  const iterator: AsyncIterableIterator<T> = {
    next() {
      const value = pending.shift();
      if (value !== undefined) return Promise.resolve({ value, done: false });
      if (done) return Promise.resolve({ value: undefined, done: true });
      return new Promise((resolve) => (waiting = resolve));
    },
    return: finish,
    async throw(error: unknown) {
      await finish();
      throw error;
    },
    [Symbol.asyncIterator]() {
      return iterator;
    },
  };
  return iterator;
}
