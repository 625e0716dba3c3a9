// Loading the rows that passed the checks (import_checked, problem IS NULL) in the import's
// transaction. A row replaces any row with the same natural key, whichever import brought it, so
// importing a file again, or a file that overlaps an earlier one, leaves one row per key.
import type { WriteTx } from '../store/group-commit.ts';
import type { KindSpec } from './kinds.ts';
import { quoteIdentifier } from './quote.ts';

export async function loadCheckedRows(tx: WriteTx, spec: KindSpec, importId: string): Promise<void> {
  const table = quoteIdentifier(spec.table);
  const sameKey = spec.key.map((k) => `t.${quoteIdentifier(k)} = c.${quoteIdentifier(k)}`).join(' AND ');
  await tx.run(`DELETE FROM ${table} t USING import_checked c WHERE c.problem IS NULL AND ${sameKey}`);
  const columns = spec.columns.map(quoteIdentifier).join(', ');
  await tx.run(
    `INSERT INTO ${table} (import_id, ${columns})
     SELECT $1, ${columns} FROM import_checked WHERE problem IS NULL ORDER BY line`,
    [importId],
  );
}

export interface ImportRecord {
  importId: string;
  kind: string;
  file: string;
  format: string;
  rowsRead: number;
  rowsLoaded: number;
  rowsSkipped: number;
}

export async function recordImport(tx: WriteTx, record: ImportRecord): Promise<void> {
  await tx.run(
    `INSERT INTO imports (import_id, kind, file, format, rows_read, rows_loaded, rows_skipped, imported_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, utc_now())`,
    [record.importId, record.kind, record.file, record.format, record.rowsRead, record.rowsLoaded, record.rowsSkipped],
  );
}
