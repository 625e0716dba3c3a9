// Reads what a reputation lookup needs: the address's precomputed records with the newest run
// (one statement, one snapshot), or whether an address without records is known to the index.
import { sqlFile } from '../../pipeline/store/sql-files.ts';
import type { Store } from '../../pipeline/store/store.ts';
import type { Row } from '../../pipeline/store/rows.ts';
import { modelVersion } from '../../pipeline/score/run.ts';
import { ApiError } from '../errors.ts';
import { knownUnscoredRecord, servedRecord, type Json, type NewestRun, type StoredRecord } from './record.ts';

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

export type Served =
  | { kind: 'record'; record: Json; run: NewestRun; stored: StoredRecord }
  | { kind: 'known_unscored'; record: Json };

/**
 * The 2.7 record of one address, as GET /v1/reputation and the batch endpoint serve it; throws
 * 404 `unknown_address` (with `can_assess`) when the address is not indexed, or has no activity on
 * the requested chain.
 */
export async function serveAddress(store: Store, address: string, options: { full: boolean; now: Date; chain?: string }): Promise<Served> {
  const found = await lookUpAddress(store, address);
  if (found.kind === 'unknown') {
    throw new ApiError('unknown_address', 'this address has not been indexed; POST /v1/assess to score it', { can_assess: true });
  }
  if (found.kind === 'known_unscored') return { kind: 'known_unscored', record: knownUnscoredRecord(address, modelVersion, options.full) };
  const record = servedRecord(found.stored, found.run, options);
  if (!record) throw new ApiError('unknown_address', `this address has no activity on ${options.chain}`, { can_assess: true });
  return { kind: 'record', record, run: found.run, stored: found.stored };
}

function newestRun(row: Row): NewestRun {
  const inputs = row.inputs ? (JSON.parse(String(row.inputs)) as { cursors: { chain: string; source: string; block: number }[] }) : null;
  const tokenCursors = new Map((inputs?.cursors ?? []).filter((c) => c.source === 'token').map((c) => [c.chain, Number(c.block)] as const));
  return { runId: Number(row.run_id), modelVersion: String(row.model_version), scoredAt: String(row.scored_at), tokenCursors };
}
