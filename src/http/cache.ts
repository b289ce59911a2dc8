import { LRUCache } from 'lru-cache';

/**
 * Short-lived per-process caches of rarely changing rows (tenants, instances, formations,
 * a caller's permissions). They hold no state that other nodes need: a change made through
 * this node clears them at once, and other nodes see it within `ttlMs`.
 */
export class ReadThroughCache<V extends {}> {
  private readonly cache: LRUCache<string, V> | undefined;
  /** Counts clears, so that a load a clear aborted is known from a load that failed. */
  private clears = 0;

  constructor(
    ttlMs: number,
    private readonly load: (key: string) => Promise<V | undefined>,
    max = 10_000,
  ) {
    // Concurrent misses for one key share one load instead of each querying the database.
    this.cache = ttlMs > 0 ? new LRUCache<string, V>({ max, ttl: ttlMs, fetchMethod: (key) => load(key) }) : undefined;
  }

  async get(key: string): Promise<V | undefined> {
    if (!this.cache) return this.load(key);
    // A hit is answered from the cache itself: fetch builds its options and promises each time,
    // and a request reads four of these (tenant, instance, access, formation).
    const hit = this.cache.get(key);
    if (hit !== undefined) return hit;
    const clears = this.clears;
    try {
      return await this.cache.fetch(key);
    } catch (error) {
      // A clear (a change, here or on another node) aborts the loads under way: this one may have
      // read the row before the change, so it is read again, uncached, rather than failing.
      if (clears !== this.clears) return this.load(key);
      throw error;
    }
  }

  clear(): void {
    this.clears++;
    this.cache?.clear();
  }
}
