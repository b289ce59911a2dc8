import { LRUCache } from 'lru-cache';

/**
 * Short-lived per-process caches of rarely changing rows (tenants, instances, formations,
 * a caller's permissions). They hold no state that other nodes need: a change made through
 * this node clears them at once, and other nodes see it within `ttlMs`.
 */
export class ReadThroughCache<V extends {}> {
  private readonly cache: LRUCache<string, V> | undefined;

  constructor(
    ttlMs: number,
    private readonly load: (key: string) => Promise<V | undefined>,
    max = 10_000,
  ) {
    // Concurrent misses for one key share one load instead of each querying the database.
    this.cache = ttlMs > 0 ? new LRUCache<string, V>({ max, ttl: ttlMs, fetchMethod: (key) => load(key) }) : undefined;
  }

  get(key: string): Promise<V | undefined> {
    return this.cache ? this.cache.fetch(key) : this.load(key);
  }

  clear(): void {
    this.cache?.clear();
  }
}
