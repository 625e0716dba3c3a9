// An in-memory index over a list a job replaces whole (the sanctions addresses, the SDN names),
// rebuilt only when a newer load exists. At most every `recheckMs` a call asks the store for the
// newest load row; when its version differs, the rows are read again, in the same snapshot as the
// load row, and handed to `build`. Concurrent callers share one refresh. `current()` answers null
// when nothing was ever loaded and throws when the store cannot be read: the callers turn both into
// their own fail-closed `unavailable`.
import type { Store } from './store.ts';
import { readRows, type Row } from './rows.ts';
import { sqlFile } from './sql-files.ts';

export interface ReloadingIndexOptions {
  /** How long an answer about the newest load is trusted before asking the store again. */
  recheckMs?: number;
  now?: () => number;
}

export interface ReloadingIndex<T> {
  current(): Promise<T | null>;
}

export interface IndexSource<T> {
  /** A sql/ file answering the newest load, with a `version` column. */
  latest: string;
  /** A sql/ file answering the rows `build` makes the index of. */
  rows: string;
  build(latest: Row, rows: Row[]): T;
  /** Keeps what the newest load row says beyond its version (e.g. when it was last confirmed) up to date. */
  touch?(index: T, latest: Row): void;
}

export function createReloadingIndex<T>(store: Store, source: IndexSource<T>, options: ReloadingIndexOptions = {}): ReloadingIndex<T> {
  const recheckMs = options.recheckMs ?? 5_000;
  const now = options.now ?? Date.now;
  let loaded: { version: string; index: T } | null = null;
  let checkedAt = -Infinity;
  let syncing: Promise<T | null> | null = null;

  const sync = async (): Promise<T | null> => {
    loaded = await store.withReadConnection(async (conn) => {
      await conn.run('BEGIN TRANSACTION');
      try {
        const [latest] = readRows(await conn.runAndReadAll(sqlFile(source.latest)));
        if (!latest) return null;
        if (loaded?.version === String(latest.version)) {
          source.touch?.(loaded.index, latest);
          return loaded;
        }
        return { version: String(latest.version), index: source.build(latest, readRows(await conn.runAndReadAll(sqlFile(source.rows)))) };
      } finally {
        await conn.run('ROLLBACK').catch(() => undefined);
      }
    });
    checkedAt = now();
    return loaded?.index ?? null;
  };

  return {
    current() {
      if (now() - checkedAt < recheckMs) return Promise.resolve(loaded?.index ?? null);
      syncing ??= sync().finally(() => (syncing = null));
      return syncing;
    },
  };
}
