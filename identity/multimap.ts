// The identity half's in-memory indexes keep sets of records per key (credentials per account,
// tokens per family, wallets per operator).

/** Adds `value` to the set of `key`, making the set when it is the first. */
export function addTo<K, V>(map: Map<K, Set<V>>, key: K, value: V): void {
  const set = map.get(key) ?? new Set<V>();
  set.add(value);
  map.set(key, set);
}
