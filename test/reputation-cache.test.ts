// The API's in-memory cache of served reputation records (api/reputation/cache.ts), over HTTP: a
// hit sends exactly what the miss sent, a new scoring run replaces what was cached, a cached
// record still turns stale with the clock, and the cache never holds more than its size.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { loadConfig } from '../pipeline/config.ts';
import { silentLogger } from '../pipeline/log.ts';
import { startServer, type RunningServer } from '../api/server.ts';
import { createAccount } from '../api/accounts.ts';
import { cliEnv, repoRoot, runCli } from './helpers/cli.ts';
import { tempDataDir } from './helpers/temp.ts';

// From test/fixtures/import/transfers.csv: each scored by the first run.
const payee = '0x74f29ee5e3abd86b4d83a8f41eb26857e5ceef0c';
const payer = '0x55fb6e92683190f4cade79f1b676ed77b599fbed';
const other = '0x7181a4864221e5ed136efa24ef572e841d6dc597';
const cacheSize = 3;

describe('record cache', () => {
  const dataDir = tempDataDir('reputation-cache');
  let server: RunningServer;
  let keys: { free: string; paid: string };
  let now = new Date();

  beforeAll(async () => {
    const imported = await runCli(['import', path.join(repoRoot, 'test/fixtures/import/transfers.csv'), '--kind', 'transfers'], cliEnv(dataDir));
    expect(imported.code).toBe(0);
    const config = loadConfig({ DATA_DIR: dataDir, PORT: '0', RECORD_CACHE_SIZE: String(cacheSize) });
    server = await startServer(config, silentLogger, { now: () => now });
    await (await server.jobs.run('score', {})).done;
    keys = {
      free: (await createAccount(server.store, { plan: 'free' }, server.keys)).api_key,
      paid: (await createAccount(server.store, { plan: 'scale' }, server.keys)).api_key,
    };
    await moveClockAfterNewestRun();
  });
  afterAll(() => server?.close());

  // The run is "now" for the status rules; each request is a second later (the free plan's limit).
  async function moveClockAfterNewestRun() {
    const [run] = await server.store.read(`SELECT strftime(scored_at, '%Y-%m-%dT%H:%M:%SZ') AS t FROM scoring_runs ORDER BY run_id DESC LIMIT 1`);
    now = new Date(Date.parse(String(run!.t)) + 60_000);
  }
  const lookup = async (address: string, key: string, query = '') => {
    now = new Date(now.getTime() + 1_000);
    const res = await fetch(`${server.url}/v1/reputation/${address}${query}`, { headers: { 'X-API-Key': key } });
    return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
  };
  const counts = () => ({ hits: server.records.hits, misses: server.records.misses });

  it('a hit sends the same bytes as the miss, for each plan shape, chain filter and the view variant', async () => {
    const missThenHit = async (address: string, key: string, query: string) => {
      const before = counts();
      const miss = await lookup(address, key, query);
      expect(counts()).toEqual({ hits: before.hits, misses: before.misses + 1 });
      const hit = await lookup(address, key, query);
      expect(counts()).toEqual({ hits: before.hits + 1, misses: before.misses + 1 });
      expect(miss.status).toBe(200);
      expect(hit).toEqual(miss);
      expect(miss.type).toBe('application/json; charset=utf-8');
      return JSON.parse(miss.text);
    };
    // The free shape is the redacted record, the paid one the full: two entries, not one.
    expect((await missThenHit(payee, keys.paid, '')).subject.address).toBe(payee);
    expect((await missThenHit(payee, keys.free, '')).subject).toBeUndefined();
    expect((await missThenHit(payee, keys.paid, '?chain=base')).chains).toHaveLength(1);
    // The view variant is built (with the clock) from the same entry as the 2.7 record.
    expect((await missThenHit(payer, keys.paid, '?view=full')).address).toBe(payer);
    const before = counts();
    expect((await lookup(payer, keys.paid)).status).toBe(200);
    expect(counts().hits).toBe(before.hits + 1);
  });

  it('a chain filter without activity is the record with no chains, from the cache too (spec 4.1: 404 is for addresses not indexed)', async () => {
    const whole = JSON.parse((await lookup(payee, keys.paid)).text);
    for (let i = 0; i < 2; i++) {
      const res = await lookup(payee, keys.paid, '?chain=solana');
      expect(res.status).toBe(200);
      // The subject stays the address's, its chains included (spec 4.1 filters chains and agents).
      expect(JSON.parse(res.text)).toEqual({ ...whole, chains: [], agents: [] });
    }
  });

  it('a cached record still turns stale 24 h after its run, and back when the clock returns', async () => {
    const fresh = JSON.parse((await lookup(payer, keys.paid)).text);
    expect(fresh.score.status).toBe('scored');
    expect(JSON.parse((await lookup(payer, keys.paid)).text).score.status).toBe('scored');
    const saved = now;
    now = new Date(now.getTime() + 25 * 3_600_000);
    try {
      const stale = JSON.parse((await lookup(payer, keys.paid)).text);
      expect(stale.score.status).toBe('stale');
      expect(stale.chains[0].score.status).toBe('stale');
      expect(stale).toEqual({ ...fresh, score: { ...fresh.score, status: 'stale' }, chains: [{ ...fresh.chains[0], score: { ...fresh.chains[0].score, status: 'stale' } }] });
      expect(JSON.parse((await lookup(payer, keys.paid)).text).score.status).toBe('stale');
      expect((await lookup(payer, keys.paid, '?view=summary')).status).toBe(503);
    } finally {
      now = saved;
    }
    expect(JSON.parse((await lookup(payer, keys.paid)).text).score.status).toBe('scored');
  });

  it(`holds at most ${cacheSize} records, dropping the least recently used`, async () => {
    for (const address of [payee, payer, other]) await lookup(address, keys.paid);
    expect(server.records.entryCount).toBe(cacheSize);
    await lookup(payee, keys.paid); // payee is now the most recent; payer the least
    await lookup(payee, keys.free);
    expect(server.records.entryCount).toBe(cacheSize);
    let before = counts();
    await lookup(other, keys.paid);
    expect(counts().hits).toBe(before.hits + 1);
    before = counts();
    await lookup(payer, keys.paid);
    expect(counts().misses).toBe(before.misses + 1);
    expect(server.records.entryCount).toBe(cacheSize);
  });

  it('a hit makes its record the most recently used: the next new record drops another', async () => {
    // Three records no earlier test asked for (one per chain filter): the cache holds these alone, a first.
    const [a, b, c, d] = ['c1', 'c2', 'c3', 'c4'].map((chain) => `?chain=${chain}`);
    for (const query of [a, b, c]) await lookup(other, keys.paid, query);
    let before = counts();
    await lookup(other, keys.paid, a); // a hit: a is now the most recent, b the least
    expect(counts()).toEqual({ hits: before.hits + 1, misses: before.misses });
    await lookup(other, keys.paid, d); // a miss, stored in place of b
    before = counts();
    await lookup(other, keys.paid, a);
    expect(counts()).toEqual({ hits: before.hits + 1, misses: before.misses });
    await lookup(other, keys.paid, b);
    expect(counts()).toEqual({ hits: before.hits + 1, misses: before.misses + 1 });
  });

  it('a new scoring run replaces every cached record', async () => {
    const before = JSON.parse((await lookup(payee, keys.paid)).text);
    expect(JSON.parse((await lookup(payee, keys.paid)).text)).toEqual(before);
    // A second payment to the payee, then a run: the record now counts two payments.
    const csv = path.join(dataDir, 'more-transfers.csv');
    writeFileSync(
      csv,
      'chain,block_number,block_time,tx_hash,log_index,token,from_address,to_address,value,tx_sender,authorized\n' +
        `base,38200000,2025-11-05T10:15:00Z,0x${'ab'.repeat(32)},1,0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913,${payer},${payee},2000000,0x179761d9eed0f0d1599330cc94b0926e68ae87f1,true\n`,
    );
    const imported = await runCli(['import', csv, '--kind', 'transfers'], cliEnv(dataDir));
    expect(imported.code).toBe(0);
    await (await server.jobs.run('score', {})).done;
    await moveClockAfterNewestRun();
    const after = JSON.parse((await lookup(payee, keys.paid)).text);
    expect(before.chains[0].activity.total_candidate_transactions).toBe(1);
    expect(after.chains[0].activity).toMatchObject({ total_candidate_transactions: 2, last_candidate_tx_at: '2025-11-05T10:15:00Z' });
    expect(JSON.parse((await lookup(payee, keys.paid)).text)).toEqual(after);
  });
});
