// Reads what a reputation lookup needs: the address's precomputed records with the newest run
// (one statement, one snapshot), or whether an address without records is known to the index;
// and serves a lookup through the record cache (./cache.ts) when the server has one.
import { sqlFile } from '../../pipeline/store/sql-files.ts';
import type { Store } from '../../pipeline/store/store.ts';
import type { DuckDBConnection, DuckDBPreparedStatement } from '@duckdb/node-api';
import { readRows, type Row } from '../../pipeline/store/rows.ts';
import { modelVersion } from '../../pipeline/score/run.ts';
import { ApiError } from '../errors.ts';
import { publishNewestRun } from '../../pipeline/score/newest-run.ts';
import { knownUnscoredRecord, recordJson, scoreStatus, servedRecord, type NewestRun, type ServeOptions, type StoredRecord } from './record.ts';
import { RecordCache, type CachedRecord } from './cache.ts';

export type Lookup =
  | { kind: 'record'; run: NewestRun; stored: StoredRecord }
  | { kind: 'known_unscored' }
  | { kind: 'unknown' };

// One prepared record.sql per read connection (a connection runs one statement at a time):
// parsing and planning it again for every lookup cost about as much as running it.
const preparedRecord = new WeakMap<DuckDBConnection, Promise<DuckDBPreparedStatement>>();

/** The row of sql/serve/address_record.sql for `address`: its records and the newest run, or undefined. */
export function readRecordRow(store: Store, address: string): Promise<Row | undefined> {
  return store.withReadConnection(async (conn) => {
    let statement = preparedRecord.get(conn);
    if (!statement) {
      // The statement shapes records with the scoring macros (temporary: one set per connection).
      statement = conn.run(sqlFile('score/macros')).then(() => conn.prepare(sqlFile('serve/address_record')));
      preparedRecord.set(conn, statement);
      statement.catch(() => preparedRecord.delete(conn));
    }
    const ready = await statement;
    ready.bind([address]);
    return readRows(await ready.runAndReadAll())[0];
  });
}

export async function lookUpAddress(store: Store, address: string): Promise<Lookup> {
  const row = await readRecordRow(store, address);
  if (row?.record_paid) return { kind: 'record', run: newestRun(row), stored: row as unknown as StoredRecord };
  const [known] = await store.read(sqlFile('serve/indexed'), [address]);
  return known?.indexed ? { kind: 'known_unscored' } : { kind: 'unknown' };
}

/**
 * Whether the address has a record or is known to the index, without building the record as
 * lookUpAddress does: what assess asks of a wallet before queueing its scoring.
 */
export async function isKnownAddress(store: Store, address: string): Promise<boolean> {
  const [scored] = await store.read(sqlFile('serve/scored'), [address]);
  if (scored?.scored) return true;
  const [known] = await store.read(sqlFile('serve/indexed'), [address]);
  return Boolean(known?.indexed);
}

export type Served =
  | ({ kind: 'record' } & CachedRecord)
  | { kind: 'known_unscored'; json: Buffer };

/**
 * The 2.7 record of one address as the UTF-8 JSON GET /v1/reputation and the batch endpoint serve,
 * from `cache` when it holds it; throws 404 `unknown_address` (with `can_assess`) when the address
 * is not indexed.
 */
export async function serveAddress(
  store: Store,
  address: string,
  options: ServeOptions,
  cache?: RecordCache,
): Promise<Served> {
  const key = RecordCache.key(address, options);
  const hit = cache?.get(key, options.now);
  if (hit) return { kind: 'record', ...hit };
  const found = await lookUpAddress(store, address);
  if (found.kind === 'unknown') {
    throw new ApiError('unknown_address', 'this address has not been indexed', { can_assess: true });
  }
  // Indexed but not scored yet: whatever the chain, the record with no chains (its activity there
  // is not known yet).
  if (found.kind === 'known_unscored') return { kind: 'known_unscored', json: recordJson(knownUnscoredRecord(address, modelVersion, options.full)) };
  // What this reader saw is committed: the cache may learn the run from it (no run yet in this process).
  publishNewestRun(store, found.run.runId);
  const record = servedRecord(found.stored, found.run, options);
  const entry: CachedRecord = {
    run: found.run,
    json: recordJson(record),
    score: { value: record.score.value, grade: record.score.grade },
    viewFacts: found.stored.view_facts,
  };
  cache?.set(key, entry, scoreStatus(found.run.scoredAt, options.now, options.staleAfterSeconds));
  return { kind: 'record', ...entry };
}

function newestRun(row: Row): NewestRun {
  const inputs = row.inputs ? (JSON.parse(String(row.inputs)) as { cursors: { chain: string; source: string; block: number }[] }) : null;
  const tokenCursors = new Map((inputs?.cursors ?? []).filter((c) => c.source === 'token').map((c) => [c.chain, Number(c.block)] as const));
  return { runId: Number(row.run_id), modelVersion: String(row.model_version), scoredAt: String(row.scored_at), tokenCursors };
}
