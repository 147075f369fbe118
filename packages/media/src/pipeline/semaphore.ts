/** At most `size` holders at once; the others wait in arrival order. */
export class Semaphore {
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly size: number) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.active >= this.size) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.active += 1;
    try {
      return await task();
    } finally {
      // Hand the slot straight to the next waiter (the count stays), or free it.
      const next = this.waiting.shift();
      if (next) next();
      else this.active -= 1;
    }
  }
}
