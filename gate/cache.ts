// A bounded cache with a time to live: at most `maxEntries`, the least recently used leaves first
// (a Map keeps insertion order; a hit moves its key to the end). Nothing runs in the background:
// an expired entry is dropped when it is read or pushed out.
export interface TtlCache<V> {
  get(key: string): V | undefined;
  /** Kept for the TTL, or until `until` (ms since the epoch) when that is sooner. */
  set(key: string, value: V, until?: number): void;
  readonly size: number;
}

export function createTtlCache<V>(options: { ttlSeconds: number; maxEntries: number; now?: () => number }): TtlCache<V> {
  const now = options.now ?? Date.now;
  const ttlMs = options.ttlSeconds * 1000;
  const entries = new Map<string, { value: V; expiresAt: number }>();
  return {
    get(key) {
      const entry = entries.get(key);
      if (!entry) return undefined;
      entries.delete(key);
      if (entry.expiresAt <= now()) return undefined;
      entries.set(key, entry);
      return entry.value;
    },
    set(key, value, until = Infinity) {
      const expiresAt = Math.min(now() + ttlMs, until);
      if (ttlMs <= 0 || options.maxEntries <= 0 || !(expiresAt > now())) return;
      entries.delete(key);
      entries.set(key, { value, expiresAt });
      while (entries.size > options.maxEntries) entries.delete(entries.keys().next().value as string);
    },
    get size() {
      return entries.size;
    },
  };
}
