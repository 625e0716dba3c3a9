// importFile writes all or nothing: refuse writes nothing, skip writes only the good rows, a
// re-import or an overlapping file replaces rows by natural key, and a failure halfway through
// the transaction leaves the tables as they were, temporary objects included.
import { describe, expect, it } from 'vitest';
import { writeFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { importFile } from '../pipeline/import/import-file.ts';
import { failingAt, importCounts, importFixtures, openImportStore } from './helpers/import-store.ts';
import { tempDataDir } from './helpers/temp.ts';
import type { Store } from '../pipeline/store/store.ts';

const deps = await openImportStore('import-transaction');
const scratch = tempDataDir('import-transaction-files');
const fixture = (name: string) => path.join(importFixtures, name);

/** Temporary objects on the writer's connection, where the import works. */
async function writerTempObjects(store: Store): Promise<number> {
  const [row] = await store.write((tx) =>
    tx.all(
      `SELECT (SELECT count(*) FROM duckdb_tables() WHERE temporary)
            + (SELECT count(*) FROM duckdb_views() WHERE temporary AND NOT internal)
            + (SELECT count(*) FROM duckdb_functions() WHERE database_name = 'temp' AND NOT internal)::INTEGER AS n`,
    ),
  );
  return Number(row!.n);
}

describe('importFile transactions', () => {
  it('refuses a file with bad rows without writing anything, and lists the bad rows', async () => {
    await importFile(deps, { file: fixture('transfers.csv'), kind: 'transfers', onBadRows: 'refuse' });
    const before = await importCounts(deps.store);
    const report = await importFile(deps, { file: fixture('transfers-bad.csv'), kind: 'transfers', onBadRows: 'refuse' });
    expect(report).toMatchObject({ refused: true, rowsRead: 18, rowsLoaded: 0, rowsSkipped: 13 });
    expect(report.badRows.map((r) => r.line)).toEqual([3, 5, 6, 9, 10, 11, 12, 13, 14, 15, 17, 18, 20]);
    expect(await importCounts(deps.store)).toEqual(before);
    expect(await deps.store.read('SELECT count(*)::INTEGER AS n FROM imports WHERE import_id = $1', [report.importId])).toEqual([{ n: 0 }]);
    expect(await writerTempObjects(deps.store)).toBe(0);
  });

  it('with skip, writes the good rows and an imports row that counts the rest', async () => {
    const before = await importCounts(deps.store);
    const report = await importFile(deps, { file: fixture('feedback.jsonl'), kind: 'feedback', onBadRows: 'skip' });
    expect(await importCounts(deps.store)).toEqual({ ...before, imports: before.imports! + 1, feedback: before.feedback! + 3 });
    expect(await deps.store.read('SELECT rows_read, rows_loaded, rows_skipped FROM imports WHERE import_id = $1', [report.importId])).toEqual([
      { rows_read: '6', rows_loaded: '3', rows_skipped: '3' },
    ]);
    expect(await writerTempObjects(deps.store)).toBe(0);
  });

  it('re-importing a file replaces its rows instead of adding them again', async () => {
    const first = await importFile(deps, { file: fixture('agents.csv'), kind: 'agents', onBadRows: 'skip' });
    const before = await importCounts(deps.store);
    const second = await importFile(deps, { file: fixture('agents.csv'), kind: 'agents', onBadRows: 'skip' });
    expect(await importCounts(deps.store)).toEqual({ ...before, imports: before.imports! + 1 });
    const owners = await deps.store.read('SELECT DISTINCT import_id FROM imported_agents');
    expect(owners).toEqual([{ import_id: second.importId }]);
    expect(second.importId).not.toBe(first.importId);
  });

  it('an overlapping file replaces the rows with the same natural key, whichever import brought them', async () => {
    await importFile(deps, { file: fixture('transfers.csv'), kind: 'transfers', onBadRows: 'refuse' });
    // The same first transfer with another value (and its hash in upper case), plus a new one.
    const lines = readFileSync(fixture('transfers.csv'), 'utf8').split('\r\n');
    const changed = lines[1]!.replace(',1000000,', ',2500000,');
    const added = lines[1]!.replace(',7,', ',8,');
    const overlap = path.join(scratch, 'overlap.csv');
    writeFileSync(overlap, [lines[0], changed, added].join('\n'));
    const before = await importCounts(deps.store);
    const report = await importFile(deps, { file: overlap, kind: 'transfers', onBadRows: 'refuse' });
    expect(await importCounts(deps.store)).toEqual({ ...before, imports: before.imports! + 1, transfers: before.transfers! + 1 });
    const rows = await deps.store.read(
      `SELECT import_id, log_index, value::VARCHAR AS value FROM imported_transfers
        WHERE tx_hash = '0x06e954bc0fdb3fc9f9a203cd3988fc81c4312c74b50df0d527a5271d7a3035d2' ORDER BY log_index`,
    );
    expect(rows).toEqual([
      { import_id: report.importId, log_index: 7, value: '2500000' },
      { import_id: report.importId, log_index: 8, value: '1000000' },
    ]);
  });

  it('a later import replaces only rows with the whole natural key: other chains, log indexes and clients stay', async () => {
    const hash = `0x${'c1'.repeat(32)}`;
    const addr = (n: number) => `0x${String(n).repeat(40)}`;
    const transfer = (chain: string, logIndex: number) =>
      JSON.stringify({ chain, block_number: 1, block_time: 1762168800, tx_hash: hash, log_index: logIndex, token: addr(1), from_address: addr(2), to_address: addr(3), value: 1, tx_sender: addr(2), authorized: true });
    const agent = (chain: string) => JSON.stringify({ chain, registry: addr(4), agent_id: 77, owner: addr(5) });
    const feedback = (client: string) =>
      JSON.stringify({ chain: 'base', registry: addr(4), agent_id: 77, client_address: client, feedback_index: 1, value: 1, value_decimals: 0, tag1: '', tag2: '', revoked: false });
    const write = (name: string, lines: string[]) => {
      const file = path.join(scratch, name);
      writeFileSync(file, `${lines.join('\n')}\n`);
      return file;
    };
    const load = (file: string, kind: 'transfers' | 'agents' | 'feedback') => importFile(deps, { file, kind, onBadRows: 'refuse' });
    await load(write('key-transfers-1.jsonl', [transfer('base', 1)]), 'transfers');
    await load(write('key-transfers-2.jsonl', [transfer('polygon', 1), transfer('base', 2)]), 'transfers');
    expect(await deps.store.read(`SELECT chain, log_index FROM imported_transfers WHERE tx_hash = $1 ORDER BY chain, log_index`, [hash])).toEqual([
      { chain: 'base', log_index: 1 }, { chain: 'base', log_index: 2 }, { chain: 'polygon', log_index: 1 },
    ]);
    await load(write('key-agents-1.jsonl', [agent('base')]), 'agents');
    await load(write('key-agents-2.jsonl', [agent('ethereum')]), 'agents');
    expect(await deps.store.read(`SELECT chain FROM imported_agents WHERE registry = $1 ORDER BY chain`, [addr(4)])).toEqual([{ chain: 'base' }, { chain: 'ethereum' }]);
    await load(write('key-feedback-1.jsonl', [feedback(addr(6))]), 'feedback');
    await load(write('key-feedback-2.jsonl', [feedback(addr(7))]), 'feedback');
    expect(await deps.store.read(`SELECT client_address FROM imported_feedback WHERE registry = $1 ORDER BY 1`, [addr(4)])).toEqual([
      { client_address: addr(6) }, { client_address: addr(7) },
    ]);
  });

  it('a bad row skipped with skip leaves the row that already has its key', async () => {
    // Only rows that load replace earlier ones: a skipped row must not delete what it would have replaced.
    const first = await importFile(deps, { file: fixture('transfers.csv'), kind: 'transfers', onBadRows: 'refuse' });
    const lines = readFileSync(fixture('transfers.csv'), 'utf8').split('\r\n');
    const badCopy = path.join(scratch, 'bad-copy.csv');
    writeFileSync(badCopy, [lines[0], lines[1]!.replace(/,true$/, ',maybe')].join('\n') + '\n');
    const before = await importCounts(deps.store);
    const report = await importFile(deps, { file: badCopy, kind: 'transfers', onBadRows: 'skip' });
    expect(report).toMatchObject({ refused: false, rowsLoaded: 0, rowsSkipped: 1 });
    expect(await importCounts(deps.store)).toEqual({ ...before, imports: before.imports! + 1 });
    const rows = await deps.store.read(
      `SELECT import_id, authorized FROM imported_transfers
        WHERE tx_hash = '0x06e954bc0fdb3fc9f9a203cd3988fc81c4312c74b50df0d527a5271d7a3035d2' AND log_index = 7`,
    );
    expect(rows).toEqual([{ import_id: first.importId, authorized: true }]);
  });

  it('a failure in the middle of the transaction leaves the tables and the connection as they were', async () => {
    await importFile(deps, { file: fixture('transfers.csv'), kind: 'transfers', onBadRows: 'refuse' });
    const before = await importCounts(deps.store);
    const snapshot = await deps.store.read('SELECT * FROM imported_transfers ORDER BY chain, tx_hash, log_index');
    // By the time the imports row is written, the old rows are deleted and the new ones inserted.
    const failing = { ...deps, store: failingAt(deps.store, /^\s*INSERT INTO imports/) };
    await expect(importFile(failing, { file: fixture('transfers.jsonl'), kind: 'transfers', onBadRows: 'refuse' })).rejects.toThrow(
      /injected failure/,
    );
    expect(await importCounts(deps.store)).toEqual(before);
    expect(await deps.store.read('SELECT * FROM imported_transfers ORDER BY chain, tx_hash, log_index')).toEqual(snapshot);
    expect(await writerTempObjects(deps.store)).toBe(0);
    // The writer goes on: the same import without the failure commits.
    expect(await importFile(deps, { file: fixture('transfers.jsonl'), kind: 'transfers', onBadRows: 'refuse' })).toMatchObject({ rowsLoaded: 5 });
  });
});
