// Exports the serving tables and the facts (pipeline/export/tables.ts) as Parquet under
// DATA_DIR/exports/run=N/, N being the newest scoring run, for analysts and `duckdb` to read while
// the server runs.
//
// Serving tables hold the current state (a row keeps the run that last recomputed it), so each is
// copied whole, and all files are one snapshot: every COPY runs in one read transaction, which also
// decides N. The files are written to run=N.tmp-<random>/ and renamed into place (replacing an
// earlier export of the same run), then `latest` is rewritten (temporary file + rename, so a reader
// never sees half a pointer), then run directories beyond the newest `keptRuns` are deleted.
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { Store } from '../store/store.ts';
import { exportedTables, type ExportedTable } from './tables.ts';
import { exportsRoot, latestPointer, runDirectoryName, runIdsIn } from './layout.ts';

export interface ExportResult {
  runId: number | null;
  directory: string | null;
}

/** Run directories kept: a query that began on an older export still finds its files. */
export const keptRuns = 3;

// Exports run one at a time in a process (the scoring job and the export job may both ask), and
// only the database's owner exports, so no other writer touches exports/ meanwhile.
let previousExport: Promise<unknown> = Promise.resolve();

export function exportLatestRun(store: Store, dataDir: string): Promise<ExportResult> {
  const next = previousExport.catch(() => undefined).then(() => exportNewestRun(store, dataDir));
  previousExport = next;
  return next;
}

async function exportNewestRun(store: Store, dataDir: string): Promise<ExportResult> {
  const root = exportsRoot(dataDir);
  mkdirSync(root, { recursive: true });
  const staged = await store.withReadConnection((conn) => writeSnapshot(conn, root));
  if (!staged) return { runId: null, directory: null };

  const directory = path.join(root, runDirectoryName(staged.runId));
  replaceDirectory(staged.directory, directory);
  const pointer = latestPointer(dataDir);
  const pointerTmp = `${pointer}.tmp-${suffix()}`;
  writeFileSync(pointerTmp, `${runDirectoryName(staged.runId)}\n`);
  renameSync(pointerTmp, pointer);
  prune(root, staged.runId);
  return { runId: staged.runId, directory };
}

/** Writes every exported table into a fresh staging directory; null when no run exists yet. */
async function writeSnapshot(conn: DuckDBConnection, root: string): Promise<{ runId: number; directory: string } | null> {
  await conn.run('BEGIN TRANSACTION');
  let staging: string | null = null;
  try {
    const [row] = (await conn.runAndReadAll('SELECT max(run_id) AS run_id FROM scoring_runs')).getRowObjectsJson();
    if (row?.run_id === null || row?.run_id === undefined) {
      await conn.run('COMMIT');
      return null;
    }
    const runId = Number(row.run_id);
    staging = path.join(root, `${runDirectoryName(runId)}.tmp-${suffix()}`);
    mkdirSync(staging);
    for (const table of exportedTables) await copyTable(conn, table, runId, path.join(staging, `${table.name}.parquet`));
    await conn.run('COMMIT');
    return { runId, directory: staging };
  } catch (err) {
    await conn.run('ROLLBACK');
    if (staging) rmSync(staging, { recursive: true, force: true });
    throw err;
  }
}

// Parquet has no 128-bit integer: DuckDB would write HUGEINT (agent ids, token values) as DOUBLE
// and lose digits. They are written as DECIMAL(38,0), exact up to 38 digits; a larger value (no
// real token or registry produces one) becomes NULL rather than failing the export.
async function copyTable(conn: DuckDBConnection, table: ExportedTable, runId: number, file: string): Promise<void> {
  const query = table.query(runId);
  const columns = (await conn.runAndReadAll(`DESCRIBE SELECT * FROM (\n${query}\n)`)).getRowObjectsJson() as { column_name: string; column_type: string }[];
  const wide = columns.filter((c) => c.column_type === 'HUGEINT' || c.column_type === 'UHUGEINT').map((c) => `"${c.column_name.replaceAll('"', '""')}"`);
  const select = wide.length === 0 ? query : `SELECT * REPLACE (${wide.map((c) => `TRY_CAST(${c} AS DECIMAL(38,0)) AS ${c}`).join(', ')}) FROM (\n${query}\n)`;
  await conn.run(`COPY (\n${select}\n) TO '${file.replaceAll("'", "''")}' (FORMAT parquet)`);
}

/** Moves `staging` to `target`; an existing `target` (the same run exported again) is replaced. */
function replaceDirectory(staging: string, target: string): void {
  if (!existsSync(target)) return renameSync(staging, target);
  // A directory cannot be renamed over a non-empty one: move the old one aside first. A reader
  // resolving `latest` in between these two renames finds no files and can run its query again.
  const aside = `${target}.old-${suffix()}`;
  renameSync(target, aside);
  renameSync(staging, target);
  rmSync(aside, { recursive: true, force: true });
}

/** Deletes run directories beyond the newest `keptRuns` and what a crashed export left behind. */
function prune(root: string, current: number): void {
  const names = readdirSync(root);
  const stale = runIdsIn(names).filter((id) => id !== current).slice(keptRuns - 1);
  for (const id of stale) rmSync(path.join(root, runDirectoryName(id)), { recursive: true, force: true });
  for (const name of names.filter((n) => /\.(tmp|old)-[0-9a-f]+$/.test(n))) rmSync(path.join(root, name), { recursive: true, force: true });
}

const suffix = () => randomBytes(6).toString('hex');
