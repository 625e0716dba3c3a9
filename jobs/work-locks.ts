// Locks on work two jobs must not do at once: two ingests of one chain would race on its cursors
// and on reorg rollbacks, two metadata fetches of one chain would fetch the same agents twice, and
// two scoring runs would only queue for the writer. A job takes its locks before one of the
// runner's slots (jobs/in-process.ts), or gives its slot back while they are held
// (jobs/bullmq/owner-runner.ts): a job waiting for work another job is doing must not hold a slot,
// or a long backfill and the runs queued behind it would hold both and nothing else would run.
// The locks are kept per open store, not per process: a job left running by a server that closed
// (its Redis gone, say) must not hold up the jobs of a server that opened the database after it.
import type { Config } from '../pipeline/config.ts';
import type { Store } from '../pipeline/store/store.ts';
import type { JobData, JobName } from './definitions.ts';

export interface WorkLocks {
  /** Runs fn holding every key, after whoever holds or waits for them before. */
  hold<T>(keys: readonly string[], fn: () => Promise<T>): Promise<T>;
  /**
   * For a job that cannot wait here without holding a slot (a BullMQ job): true when nobody holds
   * or waits for any of the keys and no such job that asked before it is still asking for one of
   * them; the caller then holds them at once. Otherwise false, and the job keeps its turn for as
   * long as it asks again within turnKeptMs, so a job that needs several keys is not overtaken
   * for ever by jobs that need one of them; unless keepTurn is false (a job that will not ask
   * again).
   */
  mayStart(jobId: string, keys: readonly string[], keepTurn?: boolean): boolean;
}

/** How long a job that stopped asking (removed from the queue, say) keeps its turn. */
export const turnKeptMs = 10_000;

const byStore = new WeakMap<Store, WorkLocks>();

export function workLocks(store: Store): WorkLocks {
  let locks = byStore.get(store);
  if (!locks) byStore.set(store, (locks = createWorkLocks()));
  return locks;
}

/**
 * The locks a job takes for its whole run. Ingests lock their chain (an ingest of every chain,
 * each configured chain); fetches of registration files lock their chain, and a fetch of every
 * chain also '*', which a fetch of a chain only the database knows (imported) takes too; scoring
 * runs lock 'score' (the rescoring of one address too: it may be a full run, and it waits for the
 * writer a scoring run holds).
 * Input is not validated yet here: the handler refuses bad input once the job runs.
 */
export function workKeys(name: JobName, data: JobData, config: Config): string[] {
  const chain = data.chain === undefined ? undefined : String(data.chain);
  const configured = Object.keys(config.chains);
  switch (name) {
    case 'ingest':
      return (chain === undefined ? configured : [chain]).map((c) => `ingest:${c}`);
    case 'fetch-metadata': {
      const key = (c: string) => `fetch-metadata:${c}`;
      if (chain === undefined) return [key('*'), ...configured.map(key)];
      return Object.hasOwn(config.chains, chain) ? [key(chain)] : [key(chain), key('*')];
    }
    case 'score':
      return ['score'];
    default:
      return [];
  }
}

function createWorkLocks(): WorkLocks {
  // Per key, the promise that settles when its last holder (or waiter) lets go.
  const tails = new Map<string, Promise<void>>();
  // Jobs that asked mayStart and were told to wait, by id: in the order they first asked.
  const turns = new Map<string, { keys: readonly string[]; lastAsked: number }>();
  return {
    mayStart(jobId, keys, keepTurn = true) {
      const now = Date.now();
      for (const [id, turn] of turns) if (now - turn.lastAsked > turnKeptMs) turns.delete(id);
      let before = false;
      for (const [id, turn] of turns) {
        if (id === jobId) break;
        if (turn.keys.some((k) => keys.includes(k))) before = true;
      }
      if (!before && !keys.some((k) => tails.has(k))) {
        turns.delete(jobId);
        return true;
      }
      const turn = turns.get(jobId);
      if (turn) turn.lastAsked = now;
      else if (keepTurn) turns.set(jobId, { keys, lastAsked: now });
      return false;
    },
    async hold(keys, fn) {
      let release!: () => void;
      const mine = new Promise<void>((resolve) => (release = resolve));
      // Every key is queued for at once, so a holder of several keys cannot interleave with
      // another: whoever queued first on any shared key goes first on all of them.
      const unique = [...new Set(keys)];
      const before = unique.map((k) => {
        const previous = tails.get(k);
        tails.set(k, mine);
        return previous;
      });
      try {
        await Promise.all(before);
        return await fn();
      } finally {
        release();
        for (const k of unique) if (tails.get(k) === mine) tails.delete(k);
      }
    },
  };
}
