// Cursors are an append-only log per (chain, source): the highest block recorded is how far the
// source is ingested. A rollback deletes the rows above the fork, which moves the cursor back.
import type { Store } from '../store/store.ts';
import { sqlFile } from '../store/sql-files.ts';

export interface Cursor {
  block: bigint;
  hash: string;
}

export async function readCursor(store: Store, chain: string, source: string): Promise<Cursor | null> {
  const [row] = await store.read(sqlFile('ingest/newest_cursor'), [chain, source]);
  return row ? { block: BigInt(String(row.block)), hash: String(row.block_hash) } : null;
}
