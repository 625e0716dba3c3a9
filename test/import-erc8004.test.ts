// importFile for ERC-8004 agents and feedback: the table layout in CSV, Parquet and JSONL, optional
// columns left out, and the real agents catalog taken as it is.
import { describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { importFile } from '../pipeline/import/import-file.ts';
import { officialIdentityRegistry } from '../pipeline/import/source-columns.ts';
import { repoRoot } from './helpers/cli.ts';
import { importFixtures, openImportStore } from './helpers/import-store.ts';
import { tempDataDir } from './helpers/temp.ts';

const deps = await openImportStore('import-erc8004');
const scratch = tempDataDir('import-erc8004-files');
const fixture = (name: string) => path.join(importFixtures, name);
const catalog = path.join(repoRoot, '../shared/data/erc8004/agents-catalog-2026-03-18.jsonl');
const reputationRegistry = '0x8004baa17c55a88189ae136b182e5fda19de9b63';

async function rows(table: string, importId: string, order: string) {
  return deps.store.read(`SELECT * EXCLUDE (import_id) FROM ${table} WHERE import_id = $1 ORDER BY ${order}`, [importId]);
}

describe('importFile agents', () => {
  it('loads a CSV with a registration spanning two lines, and reports bad rows on their lines', async () => {
    const report = await importFile(deps, { file: fixture('agents.csv'), kind: 'agents', onBadRows: 'skip' });
    expect(report.badRows).toEqual([
      { line: 5, column: 'agent_id', reason: "agent_id '340282366920938463463374607431768211455' is not a non-negative integer below 2^127 (HUGEINT)" },
      { line: 6, column: 'registration', reason: "registration '[1,2]' is not a JSON object" },
    ]);
    expect(report).toMatchObject({ rowsRead: 5, rowsLoaded: 3, rowsSkipped: 2 });
    expect(await rows('imported_agents', report.importId, 'chain, agent_id')).toEqual([
      {
        chain: 'base', registry: officialIdentityRegistry, agent_id: '1', owner: '0x55fb6e92683190f4cade79f1b676ed77b599fbed',
        agent_uri: 'https://alpha.example/agent.json', registered_block: '41663900',
        tx_hash: '0x0f58893d7b68cf6bf19fe5534e319a576a040345bbf94352f9766efe68dfc801',
        registration: '{"type":"https://eips.ethereum.org/EIPS/eip-8004#registration-v1","name":"Alpha, the first",\n"description":"spans two lines"}',
      },
      {
        chain: 'base', registry: officialIdentityRegistry, agent_id: '2', owner: '0x74f29ee5e3abd86b4d83a8f41eb26857e5ceef0c',
        agent_uri: 'ipfs://bafkreibme22gw2h7y2h7tg2fhqotaqjucnbc24deqo72b6mkl2egezxhvy', registered_block: null, tx_hash: null, registration: null,
      },
      {
        chain: 'ethereum', registry: officialIdentityRegistry, agent_id: '4', owner: '0x7181a4864221e5ed136efa24ef572e841d6dc597',
        agent_uri: 'data:application/json;base64,eyJuYW1lIjoiRGVsdGEifQ==', registered_block: '24339925',
        tx_hash: '0x6119d0fa45b1578699e5179295498ae0f6ef290842db04e8293cf68c5264d346', registration: null,
      },
    ]);
  });

  it('loads Parquet without the optional columns but with a nested registration, as JSON', async () => {
    const file = path.join(scratch, 'agents.parquet');
    const instance = await DuckDBInstance.create(':memory:');
    const conn = await instance.connect();
    await conn.run(
      `COPY (SELECT 'base' AS chain, '${officialIdentityRegistry}' AS registry, 7::BIGINT AS agent_id,
                    '0xACC629E0951078394DA3C2051BA8F3AB78F3432D' AS owner,
                    {'name': 'Parquet agent', 'x402Support': true, 'services': [{'name': 'A2A'}]} AS registration)
         TO '${file}' (FORMAT parquet)`,
    );
    conn.closeSync();
    instance.closeSync();
    const report = await importFile(deps, { file, kind: 'agents', onBadRows: 'refuse' });
    expect(report).toMatchObject({ format: 'parquet', rowsRead: 1, rowsLoaded: 1, refused: false });
    expect(await rows('imported_agents', report.importId, 'agent_id')).toEqual([
      {
        chain: 'base', registry: officialIdentityRegistry, agent_id: '7', owner: '0xacc629e0951078394da3c2051ba8f3ab78f3432d',
        agent_uri: null, registered_block: null, tx_hash: null,
        registration: '{"name":"Parquet agent","x402Support":true,"services":[{"name":"A2A"}]}',
      },
    ]);
  });

  it('takes a Parquet MAP as a JSON object and a list as JSON text', async () => {
    const parquet = async (name: string, registration: string) => {
      const file = path.join(scratch, name);
      const instance = await DuckDBInstance.create(':memory:');
      const conn = await instance.connect();
      await conn.run(
        `COPY (SELECT 'base' AS chain, '${officialIdentityRegistry}' AS registry, 8::BIGINT AS agent_id,
                      '0xacc629e0951078394da3c2051ba8f3ab78f3432d' AS owner, ${registration} AS registration)
           TO '${file}' (FORMAT parquet)`,
      );
      conn.closeSync();
      instance.closeSync();
      return importFile(deps, { file, kind: 'agents', onBadRows: 'skip' });
    };
    const map = await parquet('agents-map.parquet', `MAP {'name': 'Mapped'}`);
    expect(map).toMatchObject({ rowsLoaded: 1, badRows: [] });
    expect((await rows('imported_agents', map.importId, 'agent_id')).map((r) => r.registration)).toEqual(['{"name":"Mapped"}']);
    const list = await parquet('agents-list.parquet', `['a', 'b']`);
    expect(list.badRows).toEqual([{ line: 1, column: 'registration', reason: `registration '["a","b"]' is not a JSON object` }]);
  });

  it('imports the real agents catalog as it is, reporting its error stubs', async () => {
    const started = performance.now();
    const report = await importFile(deps, { file: catalog, kind: 'agents', onBadRows: 'skip' });
    const seconds = (performance.now() - started) / 1000;
    console.log(`agents catalog: ${report.rowsRead} lines in ${seconds.toFixed(2)} s`);
    expect(report).toMatchObject({ format: 'jsonl', rowsRead: 29_099, rowsLoaded: 24_538, rowsSkipped: 4_561, refused: false });
    expect(report.badRows).toHaveLength(100);
    expect(report.badRows[0]).toEqual({ line: 190, reason: `catalog error stub: Unexpected token '<', "<!doctype "... is not valid JSON` });
    expect(seconds).toBeLessThan(30);

    const byChain = await deps.store.read(
      `SELECT chain, registry, count(*)::INTEGER AS agents, count(registration)::INTEGER AS registrations
         FROM imported_agents WHERE import_id = $1 GROUP BY ALL ORDER BY chain`,
      [report.importId],
    );
    expect(byChain).toEqual([
      { chain: 'base', registry: officialIdentityRegistry, agents: 33, registrations: 33 },
      { chain: 'ethereum', registry: officialIdentityRegistry, agents: 24_505, registrations: 24_505 },
    ]);
    // Line 7 of the file: {"id":10001,"owner":"0x8bA7…","chain":"ethereum",…,"registeredBlock":24342224,…}
    const [agent] = await deps.store.read(
      `SELECT owner, registered_block, tx_hash, registration->>'name' AS name FROM imported_agents
        WHERE import_id = $1 AND chain = 'ethereum' AND agent_id = 10001`,
      [report.importId],
    );
    expect(agent).toEqual({
      owner: '0x8ba7775c177b5898d4e38cc7bcafc23c18380ce3', registered_block: '24342224',
      tx_hash: '0x5ba6891c7fbace791ef8b983d74142b640c8e4a29247911c3798515fad117b27', name: '1',
    });
  });
});

describe('importFile feedback', () => {
  it('loads JSONL feedback: signed values, empty or absent tags, optional times', async () => {
    const report = await importFile(deps, { file: fixture('feedback.jsonl'), kind: 'feedback', onBadRows: 'skip' });
    expect(report.badRows).toEqual([
      { line: 4, column: 'value_decimals', reason: "value_decimals '19' is not an integer from 0 to 18" },
      { line: 5, column: 'given_at', reason: "given_at 'soon' is not an ISO-8601 time or epoch seconds" },
      { line: 6, reason: 'duplicate of line 1 (same chain, registry, agent_id, client_address, feedback_index)' },
    ]);
    const loaded = await deps.store.read(
      `SELECT * EXCLUDE (import_id) REPLACE (given_at::VARCHAR AS given_at) FROM imported_feedback
        WHERE import_id = $1 ORDER BY agent_id, feedback_index`,
      [report.importId],
    );
    const common = { chain: 'base', registry: reputationRegistry };
    expect(loaded).toEqual([
      { ...common, agent_id: '1', client_address: '0xfb37e8b22d7e537d0c72c3302db188cb2caf99d4', feedback_index: '1', value: '87', value_decimals: 0, tag1: 'starred', tag2: '', given_at: '2025-11-05 12:00:00', revoked: false },
      { ...common, agent_id: '1', client_address: '0xfb37e8b22d7e537d0c72c3302db188cb2caf99d4', feedback_index: '2', value: '-3250', value_decimals: 2, tag1: 'tradingYield', tag2: 'month', given_at: null, revoked: true },
      { ...common, agent_id: '2', client_address: '0xc4c17129e46c24879730411d81f6c9b1c189ab1b', feedback_index: '1', value: '170141183460469231731687303715884105727', value_decimals: 18, tag1: 'uptime', tag2: '', given_at: '2025-11-05 00:00:00', revoked: false },
    ]);
  });
});

describe('importFile agents and feedback: rows at the edges', () => {
  const owner = '0x55fb6e92683190f4cade79f1b676ed77b599fbed';
  const write = (name: string, text: string) => {
    const file = path.join(scratch, name);
    writeFileSync(file, text);
    return file;
  };
  const jsonl = (rows: object[]) => rows.map((row) => JSON.stringify(row)).join('\n') + '\n';

  it('the same agent id under the same registry on two chains is two agents, not a duplicate', async () => {
    // The official Identity Registry has one address on every chain; the key includes the chain.
    const file = write('two-chains.csv', `chain,registry,agent_id,owner\nbase,${officialIdentityRegistry},5,${owner}\nethereum,${officialIdentityRegistry},5,${owner}\n`);
    const report = await importFile(deps, { file, kind: 'agents', onBadRows: 'refuse' });
    expect(report).toMatchObject({ rowsRead: 2, rowsLoaded: 2, badRows: [], refused: false });
    expect((await rows('imported_agents', report.importId, 'chain')).map((r) => r.chain)).toEqual(['base', 'ethereum']);
  });

  it('an agent without an owner is a bad row', async () => {
    const file = write('no-owner.csv', `chain,registry,agent_id,owner\nbase,${officialIdentityRegistry},8,\nbase,${officialIdentityRegistry},9,${owner}\n`);
    const report = await importFile(deps, { file, kind: 'agents', onBadRows: 'skip' });
    expect(report).toMatchObject({ rowsRead: 2, rowsLoaded: 1, rowsSkipped: 1 });
    expect(report.badRows).toEqual([{ line: 2, column: 'owner', reason: 'owner is empty' }]);
  });

  it('an empty or blank optional value in JSONL is absent, not a bad value', async () => {
    const file = write('blank-optional.jsonl', jsonl([
      { chain: 'base', registry: officialIdentityRegistry, agent_id: 10, owner, agent_uri: '', registered_block: '', tx_hash: '  ', registration: ' ' },
    ]));
    const report = await importFile(deps, { file, kind: 'agents', onBadRows: 'refuse' });
    expect(report).toMatchObject({ rowsLoaded: 1, badRows: [] });
    expect(await rows('imported_agents', report.importId, 'agent_id')).toEqual([
      { chain: 'base', registry: officialIdentityRegistry, agent_id: '10', owner, agent_uri: null, registered_block: null, tx_hash: null, registration: null },
    ]);
  });

  it('a file with registered_block is the table layout even when it also has the catalog\'s registeredBlock', async () => {
    const file = write('both-layouts.jsonl', jsonl([
      { chain: 'base', registry: officialIdentityRegistry, agent_id: 11, id: 999, owner, registered_block: 100, registeredBlock: 200 },
    ]));
    const report = await importFile(deps, { file, kind: 'agents', onBadRows: 'refuse' });
    expect(report).toMatchObject({ rowsLoaded: 1, badRows: [] });
    expect(await rows('imported_agents', report.importId, 'agent_id')).toMatchObject([{ agent_id: '11', registered_block: '100' }]);
  });

  it('a catalog file with a registry column takes the registry from it', async () => {
    const otherRegistry = '0x1111111111111111111111111111111111111111';
    const file = write('catalog-registry.jsonl', jsonl([
      { id: 12, owner, chain: 'base', registry: otherRegistry, registeredBlock: 300, txHash: `0x${'ab'.repeat(32)}`, rawMetadata: { name: 'Twelve' } },
    ]));
    const report = await importFile(deps, { file, kind: 'agents', onBadRows: 'refuse' });
    expect(report).toMatchObject({ rowsLoaded: 1, badRows: [] });
    expect(await rows('imported_agents', report.importId, 'agent_id')).toMatchObject([{ registry: otherRegistry, agent_id: '12', registered_block: '300' }]);
  });

  it('a file without a required column is refused naming it; feedback may leave out given_at', async () => {
    const client = '0xfb37e8b22d7e537d0c72c3302db188cb2caf99d4';
    const refusal = (file: string, kind: 'agents' | 'feedback') => importFile(deps, { file, kind, onBadRows: 'skip' }).then(() => null, (e: unknown) => (e as Error).message);
    expect(await refusal(write('no-owner-column.csv', `chain,registry,agent_id\nbase,${officialIdentityRegistry},1\n`), 'agents')).toMatch(/: missing column "owner" /);
    expect(await refusal(write('no-registry-column.csv', `chain,agent_id,owner\nbase,1,${owner}\n`), 'agents')).toMatch(/: missing column "registry" /);
    expect(await refusal(write('only-chain.csv', 'chain\nbase\n'), 'agents')).toMatch(/; found: chain\)$/);
    const feedbackHeader = 'chain,registry,agent_id,client_address,feedback_index,value,value_decimals,tag1,tag2';
    expect(await refusal(write('no-revoked-column.csv', `${feedbackHeader},given_at\nbase,${reputationRegistry},1,${client},1,5,0,,,\n`), 'feedback')).toMatch(/: missing column "revoked" /);
    const report = await importFile(deps, { file: write('no-given-at-column.csv', `${feedbackHeader},revoked\nbase,${reputationRegistry},1,${client},1,5,0,,,false\n`), kind: 'feedback', onBadRows: 'refuse' });
    expect(report).toMatchObject({ rowsLoaded: 1, badRows: [] });
  });

  it('agents: bad block numbers, hashes and registries are bad rows, and a repeated key is a duplicate', async () => {
    const file = write('agents-edges.jsonl', jsonl([
      { chain: 'base', registry: officialIdentityRegistry, agent_id: 20, owner, registered_block: '9223372036854775807' },
      { chain: 'base', registry: officialIdentityRegistry, agent_id: 21, owner, registered_block: '9223372036854775808' },
      { chain: 'base', registry: officialIdentityRegistry, agent_id: 22, owner, registered_block: 'abc' },
      { chain: 'base', registry: officialIdentityRegistry, agent_id: 23, owner, tx_hash: '0x12' },
      { chain: 'base', registry: '', agent_id: 24, owner },
      { chain: 'base', registry: officialIdentityRegistry, agent_id: 20, owner },
    ]));
    const report = await importFile(deps, { file, kind: 'agents', onBadRows: 'skip' });
    expect(report.badRows).toEqual([
      { line: 2, column: 'registered_block', reason: "registered_block '9223372036854775808' is not a non-negative integer below 2^63 (BIGINT)" },
      { line: 3, column: 'registered_block', reason: "registered_block 'abc' is not a non-negative integer below 2^63 (BIGINT)" },
      { line: 4, column: 'tx_hash', reason: "tx_hash '0x12' is not an EVM transaction hash (0x + 64 hex)" },
      { line: 5, column: 'registry', reason: 'registry is empty' },
      { line: 6, reason: 'duplicate of line 1 (same chain, registry, agent_id)' },
    ]);
    expect(await rows('imported_agents', report.importId, 'agent_id')).toMatchObject([{ agent_id: '20', registered_block: '9223372036854775807' }]);
  });

  it('feedback: feedback_index below 2^63, integer values, registry checked, Solana clients verbatim, tags kept verbatim, two clients may use one index', async () => {
    const header = 'chain,registry,agent_id,client_address,feedback_index,value,value_decimals,tag1,tag2,given_at,revoked';
    const [a, b] = ['0xfb37e8b22d7e537d0c72c3302db188cb2caf99d4', '0xc4c17129e46c24879730411d81f6c9b1c189ab1b'];
    // Solana takes base58 registries and clients, verbatim.
    const [solanaRegistry, solanaClient] = ['EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v', 'FityB5QTYs4vfRpVr5Sd6oFGvBDC3FMgMueEwFYgc97T'];
    const file = write('feedback-limits.csv', [
      header,
      `base,${reputationRegistry},1,${a},9223372036854775807,1,0,,,,false`,
      `base,${reputationRegistry},1,${b},9223372036854775807,1,0,,,,false`,
      `base,${reputationRegistry},1,${a},9223372036854775808,1,0,,,,false`,
      `base,0x8004,1,${a},5,1,0,,,,false`,
      `base,${reputationRegistry},1,${a},6,1.5,0,,,,false`,
      `solana,${solanaRegistry},1,${solanaClient},7,1,0," a tag ",,,false`,
    ].join('\n') + '\n');
    const report = await importFile(deps, { file, kind: 'feedback', onBadRows: 'skip' });
    expect(report.badRows).toEqual([
      { line: 4, column: 'feedback_index', reason: "feedback_index '9223372036854775808' is not a non-negative integer below 2^63 (BIGINT)" },
      { line: 5, column: 'registry', reason: "registry '0x8004' is not an EVM address (0x + 40 hex)" },
      { line: 6, column: 'value', reason: "value '1.5' is not an integer (int128)" },
    ]);
    expect((await rows('imported_feedback', report.importId, 'client_address')).map((r) => [r.client_address, r.tag1])).toEqual([
      [b, ''], [a, ''], [solanaClient, ' a tag '],
    ]);
  });

  it('a CSV line may hold a registration of more than 2 MB', async () => {
    const registration = JSON.stringify({ name: 'Big', image: `data:image/png;base64,${'A'.repeat(3_000_000)}` });
    const file = write('big-registration.csv', `chain,registry,agent_id,owner,registration\nbase,${officialIdentityRegistry},30,${owner},"${registration.replaceAll('"', '""')}"\n`);
    const report = await importFile(deps, { file, kind: 'agents', onBadRows: 'refuse' });
    expect(report).toMatchObject({ rowsLoaded: 1, badRows: [] });
    const [agent] = await deps.store.read(`SELECT length(registration::VARCHAR)::INTEGER AS n FROM imported_agents WHERE import_id = $1`, [report.importId]);
    expect(agent).toEqual({ n: registration.length });
  });

  it('feedback without revoked is a bad row; empty CSV tags load as empty text', async () => {
    const header = 'chain,registry,agent_id,client_address,feedback_index,value,value_decimals,tag1,tag2,given_at,revoked';
    const client = '0xfb37e8b22d7e537d0c72c3302db188cb2caf99d4';
    const file = write('feedback-edges.csv', [
      header,
      `base,${reputationRegistry},1,${client},7,80,0,,,,false`,
      `base,${reputationRegistry},1,${client},8,80,0,starred,,,`,
    ].join('\n') + '\n');
    const report = await importFile(deps, { file, kind: 'feedback', onBadRows: 'skip' });
    expect(report).toMatchObject({ rowsRead: 2, rowsLoaded: 1, rowsSkipped: 1 });
    expect(report.badRows).toEqual([{ line: 3, column: 'revoked', reason: 'revoked is empty' }]);
    expect(await rows('imported_feedback', report.importId, 'feedback_index')).toMatchObject([{ feedback_index: '7', tag1: '', tag2: '', given_at: null, revoked: false }]);
  });
});
