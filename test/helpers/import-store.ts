// Stores for the import tests: a fresh database per test file, the row counts an import may change,
// and a store whose writer fails at a chosen statement, to see a failed import leave nothing behind.
import { fileURLToPath } from 'node:url';
import { afterAll } from 'vitest';
import { openStore, type Store } from '../../pipeline/store/store.ts';
import { silentLogger, type Logger } from '../../pipeline/log.ts';
import { tempDataDir } from './temp.ts';

export const importFixtures = fileURLToPath(new URL('../fixtures/import/', import.meta.url));

/** A store in a temporary folder, closed after the test file. */
export async function openImportStore(label: string): Promise<{ store: Store; log: Logger }> {
  const store = await openStore({ dataDir: tempDataDir(label), readConnections: 1 });
  afterAll(() => store.close());
  return { store, log: silentLogger };
}

export async function importCounts(store: Store): Promise<Record<string, number>> {
  const [row] = await store.read(
    `SELECT (SELECT count(*) FROM imports)::INTEGER AS imports,
            (SELECT count(*) FROM imported_transfers)::INTEGER AS transfers,
            (SELECT count(*) FROM imported_agents)::INTEGER AS agents,
            (SELECT count(*) FROM imported_feedback)::INTEGER AS feedback`,
  );
  return row as Record<string, number>;
}

/** The same store, except that a write unit throws when it reaches a statement matching `pattern`. */
export function failingAt(store: Store, pattern: RegExp): Store {
  const check = (sql: string) => {
    if (pattern.test(sql)) throw new Error(`injected failure at: ${sql.trim().split('\n')[0]}`);
  };
  return {
    ...store,
    write: (unit) =>
      store.write((tx) =>
        unit({
          run: async (sql, params) => {
            check(sql);
            return tx.run(sql, params);
          },
          all: async (sql, params) => {
            check(sql);
            return tx.all(sql, params);
          },
          onRollback: tx.onRollback,
          append: (table, rows) => tx.append(table, rows),
        }),
      ),
  };
}
