// Acknowledged single-row writes per second through the store's group-commit writer, against
// the same inserts on a bare DuckDB connection in the same run: one autocommit transaction per
// row (what acknowledging each write without grouping costs) and one transaction for all rows
// (the ceiling).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { openStore } from '../pipeline/store/store.ts';

const rows = Number(process.env.BENCH_ROWS ?? 5_000);
const insert = `INSERT INTO accounts (id, name, plan, status, created_at) VALUES ($1, NULL, 'free', 'active', now())`;

async function rawDuckDb(perRowCommit: boolean): Promise<number> {
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-raw-'));
  try {
    const db = await DuckDBInstance.create(path.join(dir, 'raw.duckdb'));
    const conn = await db.connect();
    await conn.run(`CREATE TABLE accounts (id VARCHAR NOT NULL, name VARCHAR, plan VARCHAR NOT NULL, status VARCHAR NOT NULL, created_at TIMESTAMP NOT NULL)`);
    await conn.run('CHECKPOINT');
    const start = performance.now();
    if (!perRowCommit) await conn.run('BEGIN TRANSACTION');
    for (let i = 0; i < rows; i++) await conn.run(insert, [`acc_${i}`]);
    if (!perRowCommit) await conn.run('COMMIT');
    const seconds = (performance.now() - start) / 1000;
    conn.closeSync();
    db.closeSync();
    return rows / seconds;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function groupCommit(): Promise<number> {
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-store-'));
  try {
    const store = await openStore({ dataDir: dir });
    const start = performance.now();
    await Promise.all(Array.from({ length: rows }, (_, i) => store.write((tx) => tx.run(insert, [`acc_${i}`]))));
    const seconds = (performance.now() - start) / 1000;
    await store.close();
    return rows / seconds;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function benchGroupCommit(): Promise<Record<string, number>> {
  const perRow = await rawDuckDb(true);
  const oneTx = await rawDuckDb(false);
  const grouped = await groupCommit();
  return {
    rows,
    raw_commit_per_row_per_s: Math.round(perRow),
    raw_single_transaction_per_s: Math.round(oneTx),
    group_commit_acknowledged_per_s: Math.round(grouped),
    ratio_vs_commit_per_row: Number((grouped / perRow).toFixed(2)),
    ratio_vs_single_transaction: Number((grouped / oneTx).toFixed(2)),
  };
}
