// The synthetic data set of `npm run bench -- score` (bench/score-data.ts) at a tiny size: it is
// what it claims to be, in the shape ingestion writes, and the same on every run.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../pipeline/store/store.ts';
import { applyScoreIncrement, generateScoreData, type ScoreDataSize } from '../bench/score-data.ts';
import { chainProfiles } from '../pipeline/chain/profiles.ts';
import { tempDataDir } from './helpers/temp.ts';

const size: ScoreDataSize = { addresses: 2000, transfers: 20_000, agents: 50 };
const token = (chainProfiles.base as { token: { address: string } }).token.address.toLowerCase();

describe('bench score data', () => {
  let store: Store;
  const one = async (sql: string) => Object.values((await store.read(sql))[0]!).map(Number);

  beforeAll(async () => {
    store = await openStore({ dataDir: tempDataDir('bench-score') });
    await generateScoreData(store, size);
  });
  afterAll(() => store.close());

  it('writes the configured number of x402 payments of the base USDC, each with its authorisation and sender', async () => {
    expect(await one(`SELECT count(*), count(DISTINCT token), min(token) = '${token}' FROM token_transfers`)).toEqual([20_000, 1, 1]);
    expect(await one('SELECT count(*) FROM authorizations_used')).toEqual([20_000]);
    expect(await one(`SELECT count(*) FROM transaction_senders WHERE source = 'token'`)).toEqual([20_000]);
    // Every transfer is a payment: its block is recorded once and its authorisation pairs with it.
    expect(await one(`SELECT count(*), count(DISTINCT tx_hash || ':' || log_index) FROM x402_payments`)).toEqual([20_000, 20_000]);
    expect(await one(`SELECT count(*) FROM (SELECT block_number FROM chain_blocks WHERE source = 'token' GROUP BY ALL HAVING count(*) > 1)`)).toEqual([0]);
  });

  it('looks like ingested data: lowercase hex, blocks 2 s apart from Base genesis, 120 days up to the cursor', async () => {
    expect(
      await one(`SELECT count(*) FILTER (NOT regexp_full_match(tx_hash, '0x[0-9a-f]{64}') OR NOT regexp_full_match(from_address, '0x[0-9a-f]{40}')
                                          OR NOT regexp_full_match(to_address, '0x[0-9a-f]{40}')) FROM token_transfers`),
    ).toEqual([0]);
    expect(await one(`SELECT count(*) FILTER (NOT regexp_full_match(nonce, '0x[0-9a-f]{64}')) FROM authorizations_used`)).toEqual([0]);
    expect(await one(`SELECT count(*) FILTER (epoch(block_time)::BIGINT <> 1686789347 + 2 * block_number) FROM chain_blocks`)).toEqual([0]);
    const [days] = await one(`SELECT date_diff('day', min(block_time), max(block_time)) FROM x402_payments`);
    expect(days).toBeGreaterThanOrEqual(115);
    expect(days).toBeLessThanOrEqual(120);
    // Every source's cursor at the last block before 2026-11-01T00:00Z, with its hash; no log above it.
    const head = Math.floor((Date.UTC(2026, 10, 1) / 1000 - 1686789347) / 2);
    const cursors = await store.read(
      `SELECT c.source, c.block_number::INTEGER AS block, c.block_hash = b.block_hash AS hash_matches
         FROM ingest_cursors c LEFT JOIN chain_blocks b ON b.chain = c.chain AND b.source = c.source AND b.block_number = c.block_number
        ORDER BY c.source`,
    );
    expect(cursors).toEqual(['identity', 'reputation', 'token'].map((source) => ({ source, block: head, hash_matches: true })));
    expect(await one('SELECT max(block_number) <= ' + head + ' FROM (SELECT block_number FROM token_transfers UNION ALL SELECT block_number FROM feedback)')).toEqual([1]);
  });

  it('has about the configured number of addresses, a power law of activity, and ~70% verified payments', async () => {
    const [addresses] = await one('SELECT count(*) FROM (SELECT from_address FROM token_transfers UNION SELECT to_address FROM token_transfers)');
    expect(addresses).toBeGreaterThan(0.95 * size.addresses);
    expect(addresses).toBeLessThanOrEqual(size.addresses);
    const [top, median] = await one(
      `SELECT max(n), median(n) FROM (SELECT count(*) AS n FROM (SELECT from_address AS a FROM token_transfers UNION ALL SELECT to_address FROM token_transfers) GROUP BY a)`,
    );
    expect(top).toBeGreaterThan(100 * median!);
    const [verified] = await one('SELECT avg(verified::INTEGER) FROM x402_payments');
    expect(verified).toBeGreaterThan(0.65);
    expect(verified).toBeLessThan(0.75);
  });

  it('registers the agents, most with a paid agentWallet, with files of every quality and feedback from payers and sybils', async () => {
    expect(await one('SELECT count(*), count(DISTINCT agent_id) FROM agent_registrations')).toEqual([50, 50]);
    expect(await one(`SELECT count(*) FROM agent_transfers WHERE from_address = '0x0000000000000000000000000000000000000000'`)).toEqual([50]);
    const [withWallet, paid] = await one(
      `SELECT count(*), count(*) FILTER (metadata_value IN (SELECT to_address FROM token_transfers))
         FROM agent_metadata WHERE metadata_key = 'agentWallet' AND metadata_value <> '0x'`,
    );
    expect(withWallet).toBeGreaterThan(0.7 * size.agents);
    expect(paid).toBe(withWallet);
    expect((await store.read('SELECT DISTINCT metadata_quality AS q FROM registration_files ORDER BY q')).map((r) => r.q)).toEqual([
      'placeholder',
      'real',
      'unknown',
    ]);
    const [feedback, fromPayers, fromStrangers] = await one(
      `WITH wallets AS (SELECT agent_id, metadata_value AS wallet FROM agent_metadata WHERE metadata_key = 'agentWallet' AND metadata_value <> '0x')
       SELECT count(*),
              count(*) FILTER (EXISTS (SELECT 1 FROM token_transfers t JOIN wallets w ON w.wallet = t.to_address
                                        WHERE w.agent_id = f.agent_id AND t.from_address = f.client_address)),
              count(*) FILTER (client_address NOT IN (SELECT from_address FROM token_transfers UNION SELECT to_address FROM token_transfers))
         FROM feedback f`,
    );
    expect(feedback).toBeGreaterThan(8 * size.agents);
    expect(feedback).toBeLessThanOrEqual(10 * size.agents);
    expect(fromPayers).toBeGreaterThan(0.4 * feedback!);
    expect(fromStrangers).toBeGreaterThan(0.25 * feedback!);
  });

  it('makes the same data on every run', async () => {
    const other = await openStore({ dataDir: tempDataDir('bench-score-again') });
    try {
      await generateScoreData(other, size);
      const digest = `SELECT md5(string_agg(tx_hash || from_address || to_address || value, ',' ORDER BY tx_hash)) AS d FROM token_transfers`;
      const feedbackDigest = `SELECT md5(string_agg(tx_hash || client_address || value, ',' ORDER BY tx_hash)) AS d FROM feedback`;
      for (const sql of [digest, feedbackDigest]) expect(await other.read(sql)).toEqual(await store.read(sql));
    } finally {
      await other.close();
    }
  });

  it('increment: new blocks above the token cursor touching 1% of the addresses', async () => {
    const [before] = await one(`SELECT max(block_number) FROM ingest_cursors WHERE source = 'token'`);
    await applyScoreIncrement(store, size);
    const [after] = await one(`SELECT max(block_number) FROM ingest_cursors WHERE source = 'token'`);
    expect(after).toBeGreaterThan(before!);
    const [touched, known] = await one(
      `WITH new AS (SELECT from_address AS a FROM token_transfers WHERE block_number > ${before} UNION SELECT to_address FROM token_transfers WHERE block_number > ${before}),
            old AS (SELECT from_address AS a FROM token_transfers WHERE block_number <= ${before} UNION SELECT to_address FROM token_transfers WHERE block_number <= ${before})
       SELECT count(*), count(*) FILTER (a IN (SELECT a FROM old)) FROM new`,
    );
    expect(touched).toBe(size.addresses / 100);
    expect(known).toBeGreaterThan(0.9 * touched!);
    expect(await one(`SELECT count(*) FROM x402_payments`)).toEqual([20_000 + size.addresses / 200]);
    expect(await one(`SELECT max(block_number) FROM chain_blocks WHERE source = 'token'`)).toEqual([after]);
  });

  it('a smaller increment touches the number of addresses asked for, and only a whole even one within the population', async () => {
    const [before] = await one(`SELECT max(block_number) FROM ingest_cursors WHERE source = 'token'`);
    await applyScoreIncrement(store, size, { touchedAddresses: 6 });
    expect(await one(
      `SELECT count(*) FROM (SELECT from_address FROM token_transfers WHERE block_number > ${before}
                             UNION SELECT to_address FROM token_transfers WHERE block_number > ${before})`,
    )).toEqual([6]);
    await expect(applyScoreIncrement(store, size, { touchedAddresses: 7 })).rejects.toThrow(/whole even number/);
    await expect(applyScoreIncrement(store, size, { touchedAddresses: size.addresses + 2 })).rejects.toThrow(/at most 2000/);
  });
});
