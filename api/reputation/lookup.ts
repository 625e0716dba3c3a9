// Reads what a reputation lookup needs: the address's precomputed records with the newest run
// (one statement, one snapshot), or whether an address without records is known to the index.
import { sqlFile } from '../../pipeline/store/sql-files.ts';
import type { Store } from '../../pipeline/store/store.ts';
import type { Row } from '../../pipeline/store/rows.ts';
import type { NewestRun, StoredRecord } from './record.ts';

export type Lookup =
  | { kind: 'record'; run: NewestRun; stored: StoredRecord }
  | { kind: 'known_unscored' }
  | { kind: 'unknown' };

export async function lookUpAddress(store: Store, address: string): Promise<Lookup> {
  const [row] = await store.read(sqlFile('serve/record'), [address]);
  if (row?.record_paid) return { kind: 'record', run: newestRun(row), stored: row as unknown as StoredRecord };
  const [known] = await store.read(sqlFile('serve/indexed'), [address]);
  return known?.indexed ? { kind: 'known_unscored' } : { kind: 'unknown' };
}

function newestRun(row: Row): NewestRun {
  const inputs = row.inputs ? (JSON.parse(String(row.inputs)) as { cursors: { chain: string; source: string; block: number }[] }) : null;
  const tokenCursors = new Map((inputs?.cursors ?? []).filter((c) => c.source === 'token').map((c) => [c.chain, Number(c.block)] as const));
  return { runId: Number(row.run_id), modelVersion: String(row.model_version), scoredAt: String(row.scored_at), tokenCursors };
}
