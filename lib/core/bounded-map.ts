/**
 * A `Map` that holds at most `max` entries: adding a new key to a full map forgets the oldest
 * one first. For what a process remembers per value it is sent (verdicts, verified tokens,
 * shared values), so that a caller sending ever new values cannot grow it without bound.
 */
export class BoundedMap<K, V> extends Map<K, V> {
  constructor(private readonly max: number) {
    super();
  }

  override set(key: K, value: V): this {
    if (this.size >= this.max && !this.has(key)) {
      const oldest = this.keys().next();
      if (!oldest.done) this.delete(oldest.value);
    }
    return super.set(key, value);
  }

  /** The value remembered for `key` (`undefined` included), else `compute(key)`, remembered. */
  remember(key: K, compute: (key: K) => V): V {
    const known = this.get(key);
    if (known !== undefined || this.has(key)) return known as V;
    const value = compute(key);
    this.set(key, value);
    return value;
  }
}
