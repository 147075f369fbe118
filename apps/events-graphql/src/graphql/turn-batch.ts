/**
 * One read for every request that asked since the previous read started: they arrived within one
 * turn of the event loop, and each read starts after all the requests sharing it arrived, so none of
 * them can miss a commit that was answered before it came (ADR 0028). Nothing is kept between reads:
 * a whole-answer cache's token must be read again for every request. `read` gets the keys in the
 * order they were asked (repeats included) and returns one value per key.
 */
export class TurnBatch<K, V> {
  private pending: { keys: K[]; values: Promise<readonly V[]> } | undefined;

  constructor(private readonly read: (keys: readonly K[]) => Promise<readonly V[]>) {}

  load(key: K): Promise<V> {
    let batch = this.pending;
    if (!batch) {
      const keys: K[] = [];
      const values = new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
        this.pending = undefined;
        return this.read(keys);
      });
      batch = this.pending = { keys, values };
    }
    const index = batch.keys.push(key) - 1;
    return batch.values.then((values) => values[index]!);
  }
}
