// importFile for token transfers: the same rows from CSV, JSONL, Parquet and gzip; bad rows on
// their physical lines; a missing column refuses the file; Solana rows keep their base58 verbatim.
import { describe, expect, it } from 'vitest';
import { copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { importFile } from '../pipeline/import/import-file.ts';
import { ImportFileError } from '../pipeline/import/errors.ts';
import { formatFromName } from '../pipeline/import/format.ts';
import { importCounts, importFixtures, openImportStore } from './helpers/import-store.ts';
import { tempDataDir } from './helpers/temp.ts';

const deps = await openImportStore('import-transfers');
const scratch = tempDataDir('import-transfers-files');
const fixture = (name: string) => path.join(importFixtures, name);

const usdcBase = '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913';
const usdcMint = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';

// transfers.csv, .jsonl and the Parquet file below all hold these rows, written differently
// (mixed-case hex, epoch seconds, offsets, 1/TRUE booleans, JSON numbers).
const expected = [
  {
    chain: 'base', block_number: '38123456', block_time: '2025-11-03 10:15:00',
    tx_hash: '0x06e954bc0fdb3fc9f9a203cd3988fc81c4312c74b50df0d527a5271d7a3035d2', log_index: 7, token: usdcBase,
    from_address: '0x55fb6e92683190f4cade79f1b676ed77b599fbed', to_address: '0x74f29ee5e3abd86b4d83a8f41eb26857e5ceef0c',
    value: '1000000', tx_sender: '0x179761d9eed0f0d1599330cc94b0926e68ae87f1', authorized: true,
  },
  {
    chain: 'base', block_number: '38123999', block_time: '2025-11-03 11:20:00',
    tx_hash: '0x2311fc5d82e9dd8d3f52c70fddf7c738948974f3f25c1231b92eadba14c392ba', log_index: 0, token: usdcBase,
    from_address: '0x7181a4864221e5ed136efa24ef572e841d6dc597', to_address: '0xfb37e8b22d7e537d0c72c3302db188cb2caf99d4',
    value: '99999999999999999999999999999999999999', tx_sender: '0x73b2b8df52fbe7c40fe78db52e3dffdd5db5ad07', authorized: true,
  },
  {
    chain: 'base', block_number: '38124000', block_time: '2025-11-03 12:00:00',
    tx_hash: '0x8bb0822baaec458a6ef3bc4613db3c1e6a4e25296a6a2c293254e58f5f37a65e', log_index: 3, token: usdcBase,
    from_address: '0xacc629e0951078394da3c2051ba8f3ab78f3432d', to_address: '0xc4c17129e46c24879730411d81f6c9b1c189ab1b',
    value: '0', tx_sender: '0xacc629e0951078394da3c2051ba8f3ab78f3432d', authorized: false,
  },
  {
    chain: 'solana', block_number: '377123456', block_time: '2025-11-04 08:30:00.25',
    tx_hash: '3B6VirtQdL7jRDhNwSKTqSWCBzR8AoMFxomq2pbYg94iGcktWGZK13oLYx45Hn27NWHfB548wsAJ97GDTA5Fzxja', log_index: 2, token: usdcMint,
    from_address: '2buCpwS9jsJwLbcb197YGi5ivBxJ2GptQXS8gQjBGThd', to_address: 'awF1tyZBDfKCYFYkyrsjVbDSdiduVJECqra5UrUTQCh',
    value: '50000', tx_sender: 'L54zkaPQFeTn1UsEqieEXBqWrPShiaZEPD7mS5WXfQg', authorized: true, // Coinbase facilitator
  },
  {
    chain: 'solana', block_number: '377123999', block_time: '2025-11-04 09:00:00',
    tx_hash: '5mM9RYU4mxG1bey34r581r7cnbVGp9o8Z84PjnNczF9HUnqSZj9jPQxAWrnCvvsMbNKnhM6S4mRPYUWpcjm6q8B3', log_index: 1, token: usdcMint,
    from_address: 'FityB5QTYs4vfRpVr5Sd6oFGvBDC3FMgMueEwFYgc97T', to_address: '9yQCwTny1xbVE8cL5GcEq9PR47vXPkBQKVWWQJbcYeT2',
    value: '1250000', tx_sender: '34DmdeSbEnng2bmbSj9ActckY49km2HdhiyAwyXZucqP', authorized: true, // AnySpend facilitator
  },
];

async function loadedTransfers(importId: string) {
  return deps.store.read(
    `SELECT chain, block_number, block_time::VARCHAR AS block_time, tx_hash, log_index, token, from_address,
            to_address, value::VARCHAR AS value, tx_sender, authorized
       FROM imported_transfers WHERE import_id = $1 ORDER BY chain, block_number, log_index`,
    [importId],
  );
}

// The typed Parquet a warehouse would write: integers, TIMESTAMP, DECIMAL(38,0) for base units
// (Parquet has no 128-bit integer), BOOLEAN, and an extra nested column the import ignores.
async function writeTransfersParquet(file: string): Promise<void> {
  const json = path.join(scratch, 'expected.json');
  writeFileSync(json, JSON.stringify(expected));
  const instance = await DuckDBInstance.create(':memory:');
  const conn = await instance.connect();
  try {
    await conn.run(
      `COPY (SELECT chain, block_number::BIGINT AS block_number, block_time::TIMESTAMP AS block_time, tx_hash,
                    log_index::INTEGER AS log_index, token, from_address, to_address, value::DECIMAL(38,0) AS value,
                    tx_sender, authorized::BOOLEAN AS authorized, {'source': 'warehouse'} AS extra
               FROM read_json($1, format = 'array', columns = {
                 chain: 'VARCHAR', block_number: 'VARCHAR', block_time: 'VARCHAR', tx_hash: 'VARCHAR', log_index: 'VARCHAR',
                 token: 'VARCHAR', from_address: 'VARCHAR', to_address: 'VARCHAR', value: 'VARCHAR', tx_sender: 'VARCHAR',
                 authorized: 'VARCHAR'}))
         TO '${file.replaceAll("'", "''")}' (FORMAT parquet)`,
      [json],
    );
  } finally {
    conn.closeSync();
    instance.closeSync();
  }
}

describe('importFile transfers', () => {
  it('loads a CSV file exactly, EVM lowercased and Solana verbatim', async () => {
    const report = await importFile(deps, { file: fixture('transfers.csv'), kind: 'transfers', onBadRows: 'refuse' });
    expect(report).toMatchObject({ kind: 'transfers', format: 'csv', rowsRead: 5, rowsLoaded: 5, rowsSkipped: 0, badRows: [], refused: false });
    expect(report.importId).toMatch(/^imp_/);
    expect(await loadedTransfers(report.importId)).toEqual(expected);
    const [recorded] = await deps.store.read('SELECT kind, file, format, rows_read, rows_loaded, rows_skipped FROM imports WHERE import_id = $1', [report.importId]);
    expect(recorded).toEqual({ kind: 'transfers', file: fixture('transfers.csv'), format: 'csv', rows_read: '5', rows_loaded: '5', rows_skipped: '0' });
  });

  it('loads the same rows from JSONL, Parquet, gzip-compressed CSV and CSV with a byte-order mark', async () => {
    const parquet = path.join(scratch, 'transfers.parquet');
    await writeTransfersParquet(parquet);
    const gzipped = path.join(scratch, 'transfers.csv.gz');
    writeFileSync(gzipped, gzipSync(readFileSync(fixture('transfers.csv'))));
    const withBom = path.join(scratch, 'transfers-bom.csv');
    writeFileSync(withBom, `\uFEFF${readFileSync(fixture('transfers.csv'), 'utf8').replaceAll('\r\n', '\n')}`);
    const files = [[fixture('transfers.jsonl'), 'jsonl'], [parquet, 'parquet'], [gzipped, 'csv'], [withBom, 'csv']] as const;
    for (const [file, format] of files) {
      const progress: number[] = [];
      const report = await importFile(deps, {
        file, kind: 'transfers', onBadRows: 'refuse', onProgress: (p) => progress.push(p.rowsRead),
      });
      expect(report, file).toMatchObject({ format, rowsRead: 5, rowsLoaded: 5, badRows: [], refused: false });
      expect(progress).toEqual([5]);
      expect(await loadedTransfers(report.importId), file).toEqual(expected);
    }
  });

  it('reports bad CSV rows on their physical lines and loads the rest', async () => {
    const report = await importFile(deps, { file: fixture('transfers-bad.csv'), kind: 'transfers', onBadRows: 'skip' });
    // Line 4 is blank, the row on line 6 spans lines 6-7, line 18 has a quote inside an unquoted
    // field, line 20 holds only spaces: line numbers count them all as an editor does.
    expect(report.badRows).toEqual([
      { line: 3, column: 'block_time', reason: "block_time 'yesterday' is not an ISO-8601 time or epoch seconds" },
      { line: 5, column: 'from_address', reason: "from_address '0x123' is not an EVM address (0x + 40 hex)" },
      { line: 6, column: 'token', reason: `token '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913\nnext' is not an EVM address (0x + 40 hex)` },
      { line: 9, column: 'from_address', reason: "from_address '0x55fb6e92683190f4cade79f1b676ed77b599fbed' is not a Solana address (base58, 32-44 characters)" },
      { line: 10, reason: 'duplicate of line 2 (same chain, tx_hash, log_index)' },
      { line: 11, column: 'value', reason: "value '1.5' is not a non-negative integer of base units below 2^127 (HUGEINT)" },
      { line: 12, column: 'value', reason: "value '170141183460469231731687303715884105728' is not a non-negative integer of base units below 2^127 (HUGEINT)" },
      { line: 13, column: 'authorized', reason: "authorized 'yes' is not a boolean (true, false, 1, 0)" },
      { line: 14, reason: 'malformed CSV row (too many columns): Expected Number of Columns: 11 Found: 12' },
      { line: 15, column: 'chain', reason: 'chain is empty' },
      { line: 17, column: 'block_time', reason: "block_time '1762168800000' is not an ISO-8601 time or epoch seconds" },
      { line: 18, column: 'to_address', reason: `to_address '0xc4c1"7129e46c24879730411d81f6c9b1c189ab1b' is not an EVM address (0x + 40 hex)` },
      { line: 20, reason: 'malformed CSV row (missing columns): Expected Number of Columns: 11 Found: 1' },
    ]);
    expect(report).toMatchObject({ rowsRead: 18, rowsLoaded: 5, rowsSkipped: 13, refused: false });
    const loaded = await deps.store.read('SELECT chain, log_index FROM imported_transfers WHERE import_id = $1 ORDER BY chain, block_number, log_index', [report.importId]);
    expect(loaded).toEqual([
      { chain: 'base', log_index: 7 }, { chain: 'base', log_index: 0 }, { chain: 'base', log_index: 1 },
      { chain: 'base', log_index: 2 }, { chain: 'solana', log_index: 2 },
    ]);
  });

  it('reports bad JSONL lines, a line that is not JSON among them, and skips blank lines', async () => {
    const report = await importFile(deps, { file: fixture('transfers-bad.jsonl'), kind: 'transfers', onBadRows: 'skip' });
    expect(report.badRows).toEqual([
      { line: 2, reason: expect.stringMatching(/^line is not valid JSON: '\{"chain":"base",/) },
      { line: 5, reason: "line is JSON but not an object: '[1,2]'" },
      { line: 6, column: 'log_index', reason: "log_index '-1' is not a non-negative integer below 2^31 (INTEGER)" },
      { line: 7, column: 'tx_sender', reason: 'tx_sender is empty' },
    ]);
    // Lines 3 and 8 are blank: not rows.
    expect(report).toMatchObject({ rowsRead: 7, rowsLoaded: 3, rowsSkipped: 4 });
  });

  it('with refuse, one bad row refuses the whole file and writes nothing', async () => {
    const lines = readFileSync(fixture('transfers.csv'), 'utf8').trimEnd().split(/\r?\n/);
    // The last row with a bad value; the other rows are good.
    const file = path.join(scratch, 'one-bad-row.csv');
    writeFileSync(file, [...lines.slice(0, -1), lines.at(-1)!.replace(/,(true|false|1|0|TRUE|FALSE)\s*$/i, ',maybe')].join('\n') + '\n');
    const before = await importCounts(deps.store);
    const report = await importFile(deps, { file, kind: 'transfers', onBadRows: 'refuse' });
    expect(report).toMatchObject({ refused: true, rowsRead: lines.length - 1, rowsLoaded: 0, rowsSkipped: 1 });
    expect(report.badRows).toEqual([{ line: lines.length, column: 'authorized', reason: "authorized 'maybe' is not a boolean (true, false, 1, 0)" }]);
    expect(await importCounts(deps.store)).toEqual(before);
    // The same file with skip loads the good rows.
    expect(await importFile(deps, { file, kind: 'transfers', onBadRows: 'skip' })).toMatchObject({ refused: false, rowsLoaded: lines.length - 2, rowsSkipped: 1 });
  });

  it('refuses a file name DuckDB would read as a pattern, before writing anything', async () => {
    const before = await importCounts(deps.store);
    for (const name of ['transfers*.csv', 'transfers?.csv', 'transfers[1].csv', 'transfers{a}.csv']) {
      const file = path.join(scratch, name);
      copyFileSync(fixture('transfers.csv'), file);
      await expect(importFile(deps, { file, kind: 'transfers', onBadRows: 'skip' }), name).rejects.toThrow(/file names with \* \? \[ or \{ are not supported/);
    }
    expect(await importCounts(deps.store)).toEqual(before);
  });

  it('refuses a file without a required column, naming it and the columns found', async () => {
    const before = await importCounts(deps.store);
    const error = await importFile(deps, { file: fixture('transfers-no-value.csv'), kind: 'transfers', onBadRows: 'skip' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ImportFileError);
    expect((error as Error).message).toBe(
      `${fixture('transfers-no-value.csv')} cannot be imported as transfers: missing column "value" ` +
        '(required: chain, block_number, block_time, tx_hash, log_index, token, from_address, to_address, value, tx_sender, authorized; ' +
        'found: chain, block_number, block_time, tx_hash, log_index, token, from_address, to_address, tx_sender, authorized)',
    );
    expect(await importCounts(deps.store)).toEqual(before);
  });

  it('refuses a file it cannot read or whose format it cannot tell, before writing anything', async () => {
    await expect(importFile(deps, { file: path.join(scratch, 'absent.csv'), kind: 'transfers', onBadRows: 'skip' })).rejects.toThrow(/^no such file: /);
    await expect(importFile(deps, { file: scratch, kind: 'transfers', onBadRows: 'skip' })).rejects.toThrow(`not a file: ${scratch} (give one file per import)`);
    const unnamed = path.join(scratch, 'transfers.txt');
    copyFileSync(fixture('transfers.csv'), unnamed);
    await expect(importFile(deps, { file: unnamed, kind: 'transfers', onBadRows: 'skip' })).rejects.toThrow(/cannot tell the format of .*: give --format$/);
    // With the format named, the same file loads.
    expect(await importFile(deps, { file: unnamed, kind: 'transfers', onBadRows: 'skip', format: 'csv' })).toMatchObject({ rowsLoaded: 5 });
    const notParquet = path.join(scratch, 'broken.parquet');
    copyFileSync(fixture('transfers.csv'), notParquet);
    await expect(importFile(deps, { file: notParquet, kind: 'transfers', onBadRows: 'skip' })).rejects.toThrow(
      new RegExp(`^cannot read ${notParquet} as parquet: `),
    );
  });
});

describe('formatFromName', () => {
  it('reads the format from the extension, compressed text formats included', () => {
    expect(['a.parquet', 'a.csv', 'a.CSV.gz', 'a.jsonl', 'a.ndjson', 'a.jsonl.gz'].map(formatFromName)).toEqual([
      'parquet', 'csv', 'csv', 'jsonl', 'jsonl', 'jsonl',
    ]);
    expect(() => formatFromName('a.json')).toThrow(ImportFileError);
  });

  it('reads the extension only at the end of the name', () => {
    for (const name of ['a.parquet.gz', 'a.csv.zip', 'a.jsonl.txt']) expect(() => formatFromName(name), name).toThrow(ImportFileError);
  });
});

// Small files written per test: a base row (the first of `expected`) with some values changed.
type TransferRow = Record<string, string | number | boolean | undefined>;
const transferColumns = Object.keys(expected[0]!);
const baseRow: TransferRow = { ...expected[0]!, block_time: '2025-11-03T10:15:00Z' };
const solanaRow: TransferRow = { ...expected[3]!, block_time: '2025-11-04T08:30:00Z' };

function writeCsv(name: string, rows: TransferRow[], header = transferColumns): string {
  const file = path.join(scratch, name);
  writeFileSync(file, [header.join(','), ...rows.map((row) => header.map((c) => String(row[c] ?? '')).join(','))].join('\n') + '\n');
  return file;
}

function writeJsonl(name: string, rows: TransferRow[]): string {
  const file = path.join(scratch, name);
  writeFileSync(file, rows.map((row) => JSON.stringify(row)).join('\n') + '\n');
  return file;
}

describe('importFile transfers: values at their limits', () => {
  it('the same tx_hash and log_index on two chains are two transfers, not a duplicate', async () => {
    // The natural key is (chain, tx_hash, log_index): a hash replayed on another chain is another transfer.
    const file = writeCsv('two-chains.csv', [baseRow, { ...baseRow, chain: 'polygon' }]);
    const report = await importFile(deps, { file, kind: 'transfers', onBadRows: 'refuse' });
    expect(report).toMatchObject({ rowsRead: 2, rowsLoaded: 2, badRows: [], refused: false });
    expect((await loadedTransfers(report.importId)).map((r) => r.chain)).toEqual(['base', 'polygon']);
  });

  it('Solana addresses are 32 to 44 base58 characters', async () => {
    // 32: the System Program's address; 44: the USDC mint.
    const systemProgram = '1'.repeat(32);
    const file = writeCsv('solana-lengths.csv', [
      { ...solanaRow, log_index: 1, from_address: systemProgram },
      { ...solanaRow, log_index: 2, from_address: usdcMint },
      { ...solanaRow, log_index: 3, from_address: '1'.repeat(31) },
      { ...solanaRow, log_index: 4, from_address: `${usdcMint}1` },
    ]);
    const report = await importFile(deps, { file, kind: 'transfers', onBadRows: 'skip' });
    const form = 'is not a Solana address (base58, 32-44 characters)';
    expect(report.badRows).toEqual([
      { line: 4, column: 'from_address', reason: `from_address '${'1'.repeat(31)}' ${form}` },
      { line: 5, column: 'from_address', reason: `from_address '${usdcMint}1' ${form}` },
    ]);
    expect((await loadedTransfers(report.importId)).map((r) => r.from_address)).toEqual([systemProgram, usdcMint]);
  });

  it('a chain name is at most 64 characters, stored lowercased', async () => {
    const file = writeCsv('chain-lengths.csv', [{ ...baseRow, chain: 'C'.repeat(64) }, { ...baseRow, chain: 'c'.repeat(65) }]);
    const report = await importFile(deps, { file, kind: 'transfers', onBadRows: 'skip' });
    expect(report.badRows).toEqual([
      { line: 3, column: 'chain', reason: `chain '${'c'.repeat(65)}' is not a chain name (letters, digits, - and _)` },
    ]);
    expect((await loadedTransfers(report.importId)).map((r) => r.chain)).toEqual(['c'.repeat(64)]);
  });

  it('a value of only spaces is reported as empty, and a long bad value is cut at 80 characters', async () => {
    const file = writeJsonl('spaces-and-long.jsonl', [
      { ...baseRow, tx_sender: '   ' },
      { ...baseRow, log_index: 8, from_address: 'x'.repeat(100) },
      { ...baseRow, log_index: 9, from_address: 'y'.repeat(80) },
    ]);
    const report = await importFile(deps, { file, kind: 'transfers', onBadRows: 'skip' });
    expect(report.badRows).toEqual([
      { line: 1, column: 'tx_sender', reason: 'tx_sender is empty' },
      { line: 2, column: 'from_address', reason: `from_address '${'x'.repeat(80)}…' is not an EVM address (0x + 40 hex)` },
      { line: 3, column: 'from_address', reason: `from_address '${'y'.repeat(80)}' is not an EVM address (0x + 40 hex)` },
    ]);
  });

  it('reads a date alone as midnight UTC', async () => {
    const file = writeCsv('date-only.csv', [{ ...baseRow, block_time: '2025-11-03' }]);
    const report = await importFile(deps, { file, kind: 'transfers', onBadRows: 'refuse' });
    expect(report).toMatchObject({ rowsLoaded: 1, badRows: [] });
    expect((await loadedTransfers(report.importId)).map((r) => r.block_time)).toEqual(['2025-11-03 00:00:00']);
  });

  it('reads a lower-case z offset as UTC, as RFC 3339 allows', async () => {
    const file = writeCsv('lower-z.csv', [{ ...baseRow, block_time: '2025-11-03t10:15:00z' }]);
    const report = await importFile(deps, { file, kind: 'transfers', onBadRows: 'refuse' });
    expect(report).toMatchObject({ rowsLoaded: 1, badRows: [] });
    expect((await loadedTransfers(report.importId)).map((r) => r.block_time)).toEqual(['2025-11-03 10:15:00']);
  });

  it('integers stop below 2^31 for log_index and 2^63 for block_number', async () => {
    const file = writeCsv('integer-limits.csv', [
      { ...baseRow, log_index: 2147483647, block_number: '9223372036854775807' },
      { ...baseRow, log_index: 2147483648 },
      { ...baseRow, log_index: 9, block_number: '9223372036854775808' },
    ]);
    const report = await importFile(deps, { file, kind: 'transfers', onBadRows: 'skip' });
    expect(report.badRows).toEqual([
      { line: 3, column: 'log_index', reason: "log_index '2147483648' is not a non-negative integer below 2^31 (INTEGER)" },
      { line: 4, column: 'block_number', reason: "block_number '9223372036854775808' is not a non-negative integer below 2^63 (BIGINT)" },
    ]);
    expect((await loadedTransfers(report.importId)).map((r) => [r.log_index, r.block_number])).toEqual([[2147483647, '9223372036854775807']]);
  });

  it('EVM addresses are exactly 40 hex digits and transaction hashes exactly 64', async () => {
    const file = writeCsv('evm-lengths.csv', [
      { ...baseRow, log_index: 1, from_address: `0x${'a'.repeat(41)}` },
      { ...baseRow, log_index: 2, tx_hash: `0x${'a'.repeat(63)}` },
      { ...baseRow, log_index: 3, tx_hash: `0x${'a'.repeat(65)}` },
    ]);
    const report = await importFile(deps, { file, kind: 'transfers', onBadRows: 'skip' });
    expect(report.badRows.map((r) => [r.line, r.column])).toEqual([[2, 'from_address'], [3, 'tx_hash'], [4, 'tx_hash']]);
  });

  it('Solana signatures are 64 to 88 base58 characters, and base58 has no 0, O, I or l', async () => {
    const file = writeCsv('solana-signatures.csv', [
      { ...solanaRow, log_index: 1, tx_hash: '1'.repeat(63) },
      { ...solanaRow, log_index: 2, tx_hash: '1'.repeat(89) },
      { ...solanaRow, log_index: 3, from_address: `O${usdcMint.slice(1)}` },
      { ...solanaRow, log_index: 4, from_address: `I${usdcMint.slice(1)}` },
      { ...solanaRow, log_index: 5, from_address: `l${usdcMint.slice(1)}` },
      { ...solanaRow, log_index: 6, tx_hash: '1'.repeat(64) },
      { ...solanaRow, log_index: 7, tx_hash: '1'.repeat(88) },
    ]);
    const report = await importFile(deps, { file, kind: 'transfers', onBadRows: 'skip' });
    expect(report.badRows.map((r) => [r.line, r.column])).toEqual([[2, 'tx_hash'], [3, 'tx_hash'], [4, 'from_address'], [5, 'from_address'], [6, 'from_address']]);
    expect(report.rowsLoaded).toBe(2);
  });

  it('reads numeric offsets with or without a colon, negative ones included, as UTC', async () => {
    const file = writeCsv('offsets.csv', [
      { ...baseRow, log_index: 1, block_time: '2025-11-03T12:15:00+0200' },
      { ...baseRow, log_index: 2, block_time: '2025-11-03T05:15:00-05:00' },
    ]);
    const report = await importFile(deps, { file, kind: 'transfers', onBadRows: 'refuse' });
    expect(report).toMatchObject({ rowsLoaded: 2, badRows: [] });
    expect((await loadedTransfers(report.importId)).map((r) => r.block_time)).toEqual(['2025-11-03 10:15:00', '2025-11-03 10:15:00']);
  });

  it('a boolean may have spaces around it', async () => {
    const file = writeCsv('spaced-boolean.csv', [{ ...baseRow, authorized: ' TRUE ' }]);
    const report = await importFile(deps, { file, kind: 'transfers', onBadRows: 'refuse' });
    expect(report).toMatchObject({ rowsLoaded: 1, badRows: [] });
    expect((await loadedTransfers(report.importId)).map((r) => r.authorized)).toEqual([true]);
  });

  it('a chain name starts with a letter or digit', async () => {
    const file = writeCsv('chain-start.csv', [{ ...baseRow, chain: '-base' }, { ...baseRow, chain: '_base' }]);
    const report = await importFile(deps, { file, kind: 'transfers', onBadRows: 'skip' });
    expect(report.badRows.map((r) => [r.line, r.column])).toEqual([[2, 'chain'], [3, 'chain']]);
  });

  it('a row with several bad values reports the first in column order', async () => {
    const file = writeCsv('two-problems.csv', [{ ...baseRow, block_time: 'later', tx_hash: '0x1' }]);
    const report = await importFile(deps, { file, kind: 'transfers', onBadRows: 'skip' });
    expect(report.badRows).toEqual([{ line: 2, column: 'block_time', reason: "block_time 'later' is not an ISO-8601 time or epoch seconds" }]);
  });

  it('a bad row does not make a later good row with its key a duplicate', async () => {
    const file = writeCsv('bad-then-good.csv', [{ ...baseRow, authorized: 'maybe' }, baseRow]);
    const report = await importFile(deps, { file, kind: 'transfers', onBadRows: 'skip' });
    expect(report).toMatchObject({ rowsLoaded: 1, rowsSkipped: 1 });
    expect(report.badRows.map((r) => r.line)).toEqual([2]);
  });

  it('--format overrides the extension', async () => {
    const file = path.join(scratch, 'csv-named.jsonl');
    copyFileSync(fixture('transfers.csv'), file);
    expect(await importFile(deps, { file, kind: 'transfers', onBadRows: 'refuse', format: 'csv' })).toMatchObject({ format: 'csv', rowsLoaded: 5 });
  });

  it('reports the absolute path of a file given by a relative one', async () => {
    const relative = path.relative(process.cwd(), fixture('transfers.csv'));
    expect(path.isAbsolute(relative)).toBe(false);
    expect((await importFile(deps, { file: relative, kind: 'transfers', onBadRows: 'refuse' })).file).toBe(fixture('transfers.csv'));
  });

  it('takes CSV header names quoted (with "" for a quote) or with spaces around them', async () => {
    const header = transferColumns.map((c, i) => (i % 2 === 0 ? `"${c}"` : ` ${c} `));
    const row = readFileSync(writeCsv('plain-header.csv', [baseRow]), 'utf8').split('\n')[1];
    const file = path.join(scratch, 'quoted-header.csv');
    writeFileSync(file, `${header.join(',')}\n${row}\n`);
    expect(await importFile(deps, { file, kind: 'transfers', onBadRows: 'refuse' })).toMatchObject({ rowsLoaded: 1, badRows: [] });
    const noted = path.join(scratch, 'quoted-note.csv');
    writeFileSync(noted, '"chain","a ""note"""\nbase,x\n');
    await expect(importFile(deps, { file: noted, kind: 'transfers', onBadRows: 'refuse' })).rejects.toThrow(/; found: chain, a "note"\)$/);
  });

  it('reports bad Parquet rows by their 1-based row number', async () => {
    const csv = writeCsv('parquet-source.csv', [baseRow, { ...baseRow, log_index: 8, from_address: '0x123' }, { ...baseRow, log_index: 9 }]);
    const parquet = path.join(scratch, 'one-bad-row.parquet');
    const instance = await DuckDBInstance.create(':memory:');
    const conn = await instance.connect();
    try {
      await conn.run(`COPY (FROM read_csv('${csv}', all_varchar = true)) TO '${parquet}' (FORMAT parquet)`);
    } finally {
      conn.closeSync();
      instance.closeSync();
    }
    const report = await importFile(deps, { file: parquet, kind: 'transfers', onBadRows: 'skip' });
    expect(report).toMatchObject({ format: 'parquet', rowsRead: 3, rowsLoaded: 2 });
    expect(report.badRows).toEqual([{ line: 2, column: 'from_address', reason: "from_address '0x123' is not an EVM address (0x + 40 hex)" }]);
  });
});

describe('importFile transfers: files refused whole', () => {
  const refusal = (file: string) => importFile(deps, { file, kind: 'transfers', onBadRows: 'skip' }).then(() => null, (e: unknown) => e as Error);

  it('refuses a CSV whose header names a column twice', async () => {
    const file = writeCsv('twice.csv', [baseRow], [...transferColumns, 'value']);
    const error = await refusal(file);
    expect(error).toBeInstanceOf(ImportFileError);
    expect(error!.message).toBe(`${file} names column "value" twice in its header`);
  });

  it('refuses a CSV that is not UTF-8 with DuckDB\'s reason in one line, without the offending line', async () => {
    const file = path.join(scratch, 'latin1.csv');
    writeFileSync(file, Buffer.from('chain,block_number\nba\xffse,1\n', 'latin1'));
    const error = await refusal(file);
    expect(error).toBeInstanceOf(ImportFileError);
    expect(error!.message).toBe(`cannot read ${file} as csv: Invalid Input Error: CSV Error on Line: 2 Invalid unicode (byte sequence mismatch) detected. This file is not utf-8 encoded.`);
  });

  it('refuses an empty CSV: it has no header on line 1', async () => {
    const file = path.join(scratch, 'empty.csv');
    writeFileSync(file, '');
    const error = await refusal(file);
    expect(error).toBeInstanceOf(ImportFileError);
    expect(error!.message).toBe(`${file} has no header on line 1: a CSV import names its columns there`);
  });

  it('refuses a CSV whose rows it cannot put on their lines, rather than report wrong lines', async () => {
    // A space before a quote: DuckDB reads a quoted field spanning two lines, RFC 4180 (and the
    // line model) a plain value; they disagree on where records start.
    const lines = readFileSync(fixture('transfers.csv'), 'utf8').split('\r\n');
    const file = path.join(scratch, 'space-before-quote.csv');
    writeFileSync(file, [lines[0], ` "base\nx"${lines[1]!.slice('base'.length)}`, lines[2], lines[3]].join('\n') + '\n');
    const before = await importCounts(deps.store);
    const error = await refusal(file);
    expect(error).toBeInstanceOf(ImportFileError);
    expect(error!.message).toMatch(new RegExp(`^cannot tell which lines the rows of ${file} are on: DuckDB read \\d+ rows where the lines hold \\d+ records`));
    expect(await importCounts(deps.store)).toEqual(before);
  });

  it('names every missing column, and the columns found in the order the file has them', async () => {
    const { value: _value, authorized: _authorized, ...withoutTwo } = baseRow;
    // Keys first seen on line 2 come after those of line 1, whatever their names.
    const file = writeJsonl('two-missing.jsonl', [withoutTwo, { ...withoutTwo, log_index: 8, a_note: 'x' }]);
    const error = await refusal(file);
    expect(error).toBeInstanceOf(ImportFileError);
    const found = [...Object.keys(withoutTwo).sort(), 'a_note'];
    expect(error!.message).toBe(
      `${file} cannot be imported as transfers: missing columns "value", "authorized" ` +
        `(required: ${transferColumns.join(', ')}; found: ${found.join(', ')})`,
    );
  });
});
