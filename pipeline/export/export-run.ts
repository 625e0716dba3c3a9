// Exports the newest scoring run as Parquet under DATA_DIR/exports/run=N/, then points
// DATA_DIR/exports/latest at it (written to a temporary name and renamed, so a reader never sees
// a half-written pointer). Analysts and `duckdb` read these files while the server runs.
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Store } from '../store/store.ts';

export const exportedTables = ['address_scores', 'scoring_runs'] as const;

export interface ExportResult {
  runId: number | null;
  directory: string | null;
}

export async function exportLatestRun(store: Store, dataDir: string): Promise<ExportResult> {
  const [latest] = await store.read('SELECT max(run_id) AS run_id FROM scoring_runs');
  if (latest?.run_id === null || latest?.run_id === undefined) return { runId: null, directory: null };
  const runId = Number(latest.run_id);
  const root = path.join(dataDir, 'exports');
  const directory = path.join(root, `run=${runId}`);
  mkdirSync(directory, { recursive: true });
  await store.withReadConnection(async (conn) => {
    for (const table of exportedTables) {
      const file = path.join(directory, `${table}.parquet`).replaceAll("'", "''");
      await conn.run(`COPY (SELECT * FROM ${table} WHERE run_id = ${runId}) TO '${file}' (FORMAT parquet)`);
    }
  });
  const pointer = path.join(root, 'latest');
  writeFileSync(`${pointer}.tmp`, `run=${runId}\n`);
  renameSync(`${pointer}.tmp`, pointer);
  return { runId, directory };
}
