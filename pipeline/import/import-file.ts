// `reputation import FILE --kind transfers|agents|feedback`: loads a warehouse export (Parquet, CSV,
// JSONL) into imported_transfers, imported_agents or imported_feedback. DuckDB reads the file;
// the checks are SQL (sql/import/); nothing is parsed row by row in JavaScript.
//
// Everything happens in one unit of the serialised writer, so in one transaction: stage the file
// in temporary tables, check every row, then (unless refused) replace rows with the same natural
// keys and record the import. Either the import and all its rows commit, or nothing does.
import { statSync } from 'node:fs';
import path from 'node:path';
import { newId } from '../secrets.ts';
import type { Logger } from '../log.ts';
import type { WriteTx } from '../store/group-commit.ts';
import { sqlFile } from '../store/sql-files.ts';
import type { Store } from '../store/store.ts';
import { ImportFileError } from './errors.ts';
import { formatFromName, type ImportFormat } from './format.ts';
import { kindSpecs, type ImportKind } from './kinds.ts';
import { loadCheckedRows, recordImport } from './load.ts';
import { sourceColumns, sourceViewSql, wantedColumns } from './source-columns.ts';
import type { Stage } from './stage.ts';
import { stageCsv } from './stage-csv.ts';
import { stageJsonl } from './stage-jsonl.ts';
import { stageParquet } from './stage-parquet.ts';
import { dropImportTempObjects } from './temp-objects.ts';

export interface ImportOptions {
  file: string;
  kind: ImportKind;
  /** refuse: any bad row refuses the whole file; skip: good rows load, bad ones are reported. */
  onBadRows: 'skip' | 'refuse';
  /** Defaults to the file's extension: .parquet, .csv, .jsonl or .ndjson (the text ones also .gz). */
  format?: ImportFormat;
  /** Called once the file is read and checked. */
  onProgress?: (progress: { rowsRead: number }) => void;
}

export interface BadRow {
  /** Physical line for CSV (the header is line 1) and JSONL, 1-based row number for Parquet. */
  line: number;
  column?: string;
  reason: string;
}

export interface ImportReport {
  importId: string;
  kind: ImportKind;
  format: ImportFormat;
  /** The absolute path read. */
  file: string;
  rowsRead: number;
  rowsLoaded: number;
  /** Bad rows: skipped, or with `refused` the rows that refused the file. */
  rowsSkipped: number;
  /** The first 100 bad rows, by line, each with its first problem. */
  badRows: BadRow[];
  refused: boolean;
}

const stages: Record<ImportFormat, Stage> = { csv: stageCsv, jsonl: stageJsonl, parquet: stageParquet };
const reportedBadRows = 100;

/** Imports one file; throws ImportFileError (nothing written) when the file cannot be imported at all. */
export async function importFile(deps: { store: Store; log: Logger }, options: ImportOptions): Promise<ImportReport> {
  // The owner process may run elsewhere than the caller's directory: DuckDB gets an absolute path.
  const file = path.resolve(options.file);
  const stat = statSync(file, { throwIfNoEntry: false });
  if (!stat) throw new ImportFileError(`no such file: ${file}`);
  if (!stat.isFile()) throw new ImportFileError(`not a file: ${file} (give one file per import)`);
  // DuckDB's readers expand glob patterns: a name with * ? [ { would read other files.
  if (/[*?[{]/.test(file)) throw new ImportFileError(`file names with * ? [ or { are not supported (DuckDB reads them as patterns): ${file}`);
  const format = options.format ?? formatFromName(file);
  const importId = newId('imp_');
  const started = performance.now();

  const report = await deps.store.write(async (tx) => {
    await dropImportTempObjects(tx);
    await tx.run(sqlFile('import/macros'));
    const found = await stages[format](tx, file, wantedColumns(options.kind));
    await tx.run(sourceViewSql(options.kind, sourceColumns(options.kind, found, file)));
    await tx.run(sqlFile(`import/check_${options.kind}`));

    const { rowsRead, rowsBad, badRows } = await summarise(tx);
    options.onProgress?.({ rowsRead });
    const refused = options.onBadRows === 'refuse' && rowsBad > 0;
    const report: ImportReport = {
      importId,
      kind: options.kind,
      format,
      file,
      rowsRead,
      rowsLoaded: refused ? 0 : rowsRead - rowsBad,
      rowsSkipped: rowsBad,
      badRows,
      refused,
    };
    if (!refused) {
      await loadCheckedRows(tx, kindSpecs[options.kind], importId);
      await recordImport(tx, report);
    }
    await dropImportTempObjects(tx);
    return report;
  });

  const { badRows, ...summary } = report;
  const fields = { ...summary, ms: Math.round(performance.now() - started) };
  if (report.refused) deps.log.warn('import refused: bad rows', { ...fields, firstBadRow: badRows[0] });
  else deps.log.info('imported file', fields);
  return report;
}

async function summarise(tx: WriteTx): Promise<{ rowsRead: number; rowsBad: number; badRows: BadRow[] }> {
  const [counts] = await tx.all('SELECT count(*) AS rows_read, count(problem) AS rows_bad FROM import_checked');
  const bad = await tx.all(
    `SELECT line, problem.bad_column AS bad_column, problem.reason AS reason
       FROM import_checked WHERE problem IS NOT NULL ORDER BY line LIMIT ${reportedBadRows}`,
  );
  return {
    rowsRead: Number(counts!.rows_read),
    rowsBad: Number(counts!.rows_bad),
    badRows: bad.map((row) => ({
      line: Number(row.line),
      ...(row.bad_column === null ? {} : { column: String(row.bad_column) }),
      reason: String(row.reason),
    })),
  };
}
