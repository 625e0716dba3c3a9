// The newest committed scoring run of a store, kept in memory. DuckDB lets one process own the
// file and every run goes through runScoring in that process, which publishes the run's id as soon
// as its transaction committed; readers in the same process (the API's record cache) learn of a
// new run without asking the database. Before any run in this process the id is unknown until a
// reader reports the one it read (run ids only grow, so the larger id always wins).
import type { Store } from '../store/store.ts';

const newest = new WeakMap<Store, number>();

/** Records that run `runId` is committed in `store` (ignored when a newer one is already known). */
export function publishNewestRun(store: Store, runId: number): void {
  if (runId > (newest.get(store) ?? 0)) newest.set(store, runId);
}

/** The newest run id known to be committed in `store`, or undefined before anyone learnt one. */
export function newestRunId(store: Store): number | undefined {
  return newest.get(store);
}
