/** Bounds the memory of a process that sees many distinct keys. */
const DEFAULT_MAX_ENTRIES = 10_000;

/**
 * A process-local map whose entries each end at a time of their own and are never answered
 * after it. Bounded: once full it starts over, which costs a read nothing, where tracking
 * recency would cost every read.
 */
export class ExpiringMap<K, V> {
  private readonly entries = new Map<K, { value: V; until: number }>();

  constructor(private readonly maxEntries = DEFAULT_MAX_ENTRIES) {}

  /** The value while its entry lasts (`now` before `until`), else undefined. */
  get(key: K, now = Date.now()): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.until > now) return entry.value;
    this.entries.delete(key);
    return undefined;
  }

  /** Keeps `value` until `until`, in milliseconds since the epoch. */
  set(key: K, value: V, until: number): void {
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(key, { value, until });
  }

  delete(key: K): void {
    this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }
}
