// Locks on work two jobs must not do at once: two ingests of one chain would race on its cursors
// and on reorg rollbacks, two metadata fetches of one chain would fetch the same agents twice, and
// two scoring runs would only queue for the writer. The locks are kept per open store, not per
// process: a job left running by a server that closed (its Redis gone, say) must not hold up the
// jobs of a server that opened the database after it.
import type { Store } from '../pipeline/store/store.ts';

export interface WorkLocks {
  /** True while a job holds (or waits for) any of these keys. */
  busy(keys: readonly string[]): boolean;
  /** Runs fn holding every key, after whoever holds or waits for them before. */
  hold<T>(keys: readonly string[], fn: () => Promise<T>): Promise<T>;
}

const byStore = new WeakMap<Store, WorkLocks>();

export function workLocks(store: Store): WorkLocks {
  let locks = byStore.get(store);
  if (!locks) byStore.set(store, (locks = createWorkLocks()));
  return locks;
}

function createWorkLocks(): WorkLocks {
  // Per key, the promise that settles when its last holder (or waiter) lets go.
  const tails = new Map<string, Promise<void>>();
  return {
    busy: (keys) => keys.some((k) => tails.has(k)),
    async hold(keys, fn) {
      let release!: () => void;
      const mine = new Promise<void>((resolve) => (release = resolve));
      // Every key is queued for at once, so a holder of several keys cannot interleave with
      // another: whoever queued first on any shared key goes first on all of them.
      const before = [...new Set(keys)].map((k) => {
        const previous = tails.get(k);
        tails.set(k, mine);
        return previous;
      });
      try {
        await Promise.all(before);
        return await fn();
      } finally {
        release();
        for (const k of keys) if (tails.get(k) === mine) tails.delete(k);
      }
    },
  };
}
