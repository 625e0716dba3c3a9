// File import: rows per second of `importFile` (validation, line numbers, natural-key replace,
// one transaction) against DuckDB reading the same Parquet file into a table with read_parquet,
// in the same run.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { openStore } from '../pipeline/store/store.ts';
import { importFile } from '../pipeline/import/import-file.ts';
import { silentLogger } from '../pipeline/log.ts';

const rows = Number(process.env.BENCH_IMPORT_ROWS ?? 1_000_000);

// Valid x402 transfers on base: hex hashes and addresses derived from the row number.
const generate = (file: string) => `
  COPY (
    SELECT 'base' AS chain, 30000000 + i AS block_number, TIMESTAMP '2025-06-01' + INTERVAL (i) SECOND AS block_time,
           '0x' || lpad(printf('%x', i), 64, '0') AS tx_hash, 0 AS log_index,
           '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913' AS token,
           '0x' || lpad(printf('%x', i % 50000), 40, '0') AS from_address,
           '0x' || lpad(printf('%x', 100000 + i % 7000), 40, '0') AS to_address,
           (1000 + i % 997)::DECIMAL(38,0) AS value,
           '0x73b2b8df52fbe7c40fe78db52e3dffdd5db5ad07' AS tx_sender, true AS authorized
      FROM range(${rows}) t(i)
  ) TO '${file}' (FORMAT parquet)`;

export async function benchImport(): Promise<Record<string, number>> {
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-import-'));
  try {
    const file = path.join(dir, 'transfers.parquet');
    const raw = await DuckDBInstance.create(path.join(dir, 'raw.duckdb'));
    const conn = await raw.connect();
    await conn.run(generate(file));
    let start = performance.now();
    await conn.run(`CREATE TABLE t AS SELECT * FROM read_parquet('${file}')`);
    const baseline = rows / ((performance.now() - start) / 1000);
    conn.closeSync();
    raw.closeSync();

    const store = await openStore({ dataDir: path.join(dir, 'store') });
    start = performance.now();
    const report = await importFile({ store, log: silentLogger }, { file, kind: 'transfers', onBadRows: 'refuse' });
    const ours = rows / ((performance.now() - start) / 1000);
    await store.close();
    if (report.rowsLoaded !== rows) throw new Error(`import loaded ${report.rowsLoaded} of ${rows} rows`);
    return {
      rows,
      read_parquet_rows_per_s: Math.round(baseline),
      import_rows_per_s: Math.round(ours),
      ratio_vs_read_parquet: Number((ours / baseline).toFixed(3)),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
