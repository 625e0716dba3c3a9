// Where exports live: DATA_DIR/exports/run=N/<view>.parquet, and DATA_DIR/exports/latest, a one-line
// file `run=N` naming the newest complete export. Written by export-run.ts, read by query-exports.ts.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

export interface RunExport {
  runId: number;
  directory: string;
}

export const exportsRoot = (dataDir: string): string => path.join(dataDir, 'exports');
export const runDirectoryName = (runId: number): string => `run=${runId}`;
export const latestPointer = (dataDir: string): string => path.join(exportsRoot(dataDir), 'latest');

/** The run directories under exports/ (complete ones only), newest first. */
export function runIdsIn(names: string[]): number[] {
  return names
    .map((name) => /^run=(\d+)$/.exec(name))
    .filter((m) => m !== null)
    .map((m) => Number(m[1]))
    .sort((a, b) => b - a);
}

/** The export `latest` points at; null when nothing was exported yet. */
export function readLatestExport(dataDir: string): RunExport | null {
  const pointer = latestPointer(dataDir);
  if (!existsSync(pointer)) return null;
  const match = /^run=(\d+)\s*$/.exec(readFileSync(pointer, 'utf8'));
  if (!match) throw new Error(`${pointer} should hold one line run=N`);
  const runId = Number(match[1]);
  const directory = path.join(exportsRoot(dataDir), runDirectoryName(runId));
  if (!existsSync(directory)) throw new Error(`${pointer} names ${runDirectoryName(runId)}, which is missing`);
  return { runId, directory };
}
