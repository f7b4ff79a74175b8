/**
 * FIFO mutexes by key: callers of one key run one at a time, in arrival order; callers of
 * different keys do not wait for each other. A key is held only while a caller runs or waits, so
 * keys a stranger makes up (typed e-mail addresses) take no memory once their calls have ended.
 */
export class KeyedMutex {
  private readonly tails = new Map<string, Promise<void>>();

  async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((resolve) => {
      release = resolve;
    });
    const tail = previous.then(() => mine);
    this.tails.set(key, tail);
    await previous;
    try {
      return await fn();
    } finally {
      release();
      // The last in line leaves nothing behind.
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }

  /** Runs `fn` holding every key of `keys`, taken in the order given (callers must all use one order). */
  async runAll<T>(keys: readonly string[], fn: () => Promise<T>): Promise<T> {
    const [first, ...rest] = keys;
    return first === undefined ? fn() : this.run(first, () => this.runAll(rest, fn));
  }

  /** Keys held now (for tests). */
  get size(): number {
    return this.tails.size;
  }
}
