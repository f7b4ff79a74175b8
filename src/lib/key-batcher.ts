/**
 * Gathers the keys asked for during one turn of the event loop and fetches them together, in as
 * few calls of `fetchMany` as `max` allows. Requests that arrive together (the sockets read in one
 * turn) then share one database round trip instead of taking one each; a key asked for twice is
 * fetched once. A key waits at most until the end of the turn it was asked in (setImmediate).
 */
export class KeyBatcher<K, V> {
  private waiting = new Map<K, Array<Waiter<V>>>();
  private scheduled = false;

  constructor(
    /** The values of `keys` (distinct, at most `max`); a key with no value is left out. */
    private readonly fetchMany: (keys: K[]) => Promise<ReadonlyMap<K, V>>,
    private readonly max: number,
  ) {
    if (!(max >= 1)) throw new RangeError('KeyBatcher: max must be at least 1');
  }

  /** The value of `key`, or undefined if it has none; rejects if its batch's fetch failed. */
  get(key: K): Promise<V | undefined> {
    return new Promise((resolve, reject) => {
      const list = this.waiting.get(key);
      if (list) list.push({ resolve, reject });
      else this.waiting.set(key, [{ resolve, reject }]);
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    const waiting = this.waiting;
    this.waiting = new Map();
    this.scheduled = false;
    const keys = [...waiting.keys()];
    for (let at = 0; at < keys.length; at += this.max) {
      const part = keys.slice(at, at + this.max);
      // Through a promise, so that fetchMany throwing at once rejects its callers too.
      Promise.resolve(part)
        .then((asked) => this.fetchMany(asked))
        .then(
          (values) => {
            for (const key of part) for (const w of waiting.get(key) ?? []) w.resolve(values.get(key));
          },
          (err: unknown) => {
            for (const key of part) for (const w of waiting.get(key) ?? []) w.reject(err);
          },
        );
    }
  }
}

interface Waiter<V> {
  readonly resolve: (value: V | undefined) => void;
  readonly reject: (err: unknown) => void;
}
