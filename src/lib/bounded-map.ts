/**
 * A Map that holds at most `maxEntries`: adding a new key when full drops the oldest entry
 * (Maps iterate in insertion order). For caches only, where a dropped entry costs one more read;
 * the rate limiter must never forget a live count and does not use it.
 */
export class BoundedMap<K, V> extends Map<K, V> {
  constructor(private readonly maxEntries: number) {
    super();
  }

  override set(key: K, value: V): this {
    if (this.size >= this.maxEntries && !this.has(key)) {
      const oldest = this.keys().next();
      if (!oldest.done) this.delete(oldest.value);
    }
    return super.set(key, value);
  }
}
