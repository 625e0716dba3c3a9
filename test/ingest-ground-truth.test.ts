// Ingestion against the simulator's ground truth, exactly: per-address x402 facts (candidate and
// verified counts, volumes, counterparties, active days and months), agents (owner, URI, wallet),
// feedback with revocations, responses, transfers. Then the same through a JSON-RPC proxy that
// injects provider faults: the store must come out identical.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getAddress } from 'viem';
import { startDevnet, type Devnet } from '../devnet/index.ts';
import { simulate } from '../devnet/simulate.ts';
import type { SimulationTruth } from '../devnet/simulate-truth.ts';
import { startFaultyRpcProxy } from '../devnet/faulty-rpc-proxy.ts';
import { loadConfig, type ChainConfig } from '../pipeline/config.ts';
import { silentLogger } from '../pipeline/log.ts';
import { openStore, type Store } from '../pipeline/store/store.ts';
import { createChainRpc, ingestChain } from '../pipeline/ingest/ingest-chain.ts';
import { ingestSource } from '../pipeline/ingest/ingest-source.ts';
import { InconsistentChunkError, localChunkFetcher, sourceOf } from '../pipeline/ingest/fetch-chunk.ts';
import { refreshFacilitators } from '../pipeline/chain/facilitators.ts';
import { tempDataDir } from './helpers/temp.ts';
import { RangeTooLargeError } from '../pipeline/chain/rpc.ts';
import { sendJson, startLoopbackServer } from './helpers/loopback-server.ts';
import { storedAddressFacts, storedAgents, storedCounts, storedFeedback, truthAddressFacts, truthAgents, truthFeedback } from './helpers/ground-truth.ts';

describe('ingestion equals the simulator ground truth', () => {
  let devnet: Devnet;
  let truth: SimulationTruth;
  let closeRegistrations: () => Promise<void>;
  let chain: ChainConfig;

  beforeAll(async () => {
    devnet = await startDevnet({ port: 0 });
    const simulation = await simulate(devnet, { agents: 24, payments: 240, seed: 'ground-truth' });
    truth = simulation.truth;
    closeRegistrations = () => simulation.registrationServer.close();
    chain = { ...loadConfig({ RPC_URL_DEVNET: devnet.rpcUrl }).chains.devnet!, maxBlockRange: 40 };
  }, 120_000);
  afterAll(async () => {
    await closeRegistrations?.();
    await devnet?.close();
  });

  async function ingestInto(chainConfig: ChainConfig): Promise<Store> {
    const store = await openStore({ dataDir: tempDataDir('truth') });
    await store.write((tx) => refreshFacilitators(tx));
    await ingestChain({ store, chain: chainConfig, log: silentLogger });
    return store;
  }

  async function expectTruth(store: Store) {
    expect(await storedAddressFacts(store)).toEqual(truthAddressFacts(truth));
    expect(await storedAgents(store)).toEqual(truthAgents(truth));
    expect(await storedFeedback(store)).toEqual(truthFeedback(truth));
    expect(await storedCounts(store)).toEqual({
      candidate: truth.totals.candidate,
      verified: truth.totals.verified,
      responses: truth.totals.responses,
      agentTransfers: truth.totals.agentTransfers,
      uriUpdates: truth.totals.uriUpdates,
    });
  }

  it('over a well-behaved node', async () => {
    const store = await ingestInto(chain);
    try {
      await expectTruth(store);
      // Plain transfers are stored as transfers but are not x402 payments.
      const [plain] = await store.read(`SELECT count(*)::INTEGER AS n FROM token_transfers t WHERE NOT EXISTS (SELECT 1 FROM x402_payments p WHERE p.chain = t.chain AND p.tx_hash = t.tx_hash AND p.log_index = t.log_index) AND t.from_address <> '0x0000000000000000000000000000000000000000'`);
      expect(plain).toEqual({ n: truth.totals.plainTransfers });
    } finally {
      await store.close();
    }
  });

  it('through a proxy injecting 429s, timeouts, dropped connections and range errors', { timeout: 180_000 }, async () => {
    const proxy = await startFaultyRpcProxy({ target: devnet.rpcUrl, seed: 'faults', faultRate: 0.2, maxBlockRange: 25, maxResults: 60, holdMs: 1_500 });
    // A short client timeout, so held requests time out quickly; a tight retry base delay.
    const store = await ingestInto({ ...chain, rpcUrl: proxy.url, rpcTimeoutMs: 500, maxBlockRange: 200 });
    try {
      await expectTruth(store);
      // Every kind of fault really happened.
      for (const kind of ['rate_limit', 'timeout', 'dropped', 'too_many_results', 'block_range'] as const) expect(proxy.stats[kind], kind).toBeGreaterThan(0);
    } finally {
      await store.close();
      await proxy.close();
    }
  });

  /** Ingests the token source through `rpcUrl`, returning the size of each range written, in order. */
  async function tokenRanges(chainConfig: ChainConfig): Promise<{ sizes: number[]; rangeShrinks: number }> {
    const store = await openStore({ dataDir: tempDataDir('ranges') });
    try {
      const rpc = createChainRpc(chainConfig);
      const sizes: number[] = [];
      let last: bigint | null = null;
      const result = await ingestSource({
        store,
        fetchChunk: localChunkFetcher(() => rpc),
        chain: chainConfig,
        source: sourceOf(chainConfig, 'token'),
        log: silentLogger,
        head: await rpc.getBlockNumber(),
        onProgress: (p) => {
          sizes.push(Number(p.doneBlock - (last ?? p.fromBlock - 1n)));
          last = p.doneBlock;
        },
      });
      return { sizes, rangeShrinks: result.rangeShrinks };
    } finally {
      await store.close();
    }
  }

  it('shrinks a refused range straight to the range the provider suggests', async () => {
    // Alchemy-style: "up to a 7 block range ... [from, from + 7]", i.e. 8 blocks; we start at 200.
    const proxy = await startFaultyRpcProxy({ target: devnet.rpcUrl, seed: 'suggested', faultRate: 0, maxBlockRange: 7 });
    try {
      const { sizes, rangeShrinks } = await tokenRanges({ ...chain, rpcUrl: proxy.url, maxBlockRange: 200 });
      expect(sizes.length).toBeGreaterThan(3);
      // Halving would go 200, 100, 50, 25, 12, 6: the first range written would be 6 blocks.
      expect(sizes[0]).toBe(8);
      expect(sizes.slice(0, -1).every((n) => n === 8)).toBe(true);
      expect(rangeShrinks).toBeGreaterThan(0);
    } finally {
      await proxy.close();
    }
  });

  it('grows the range back after the provider refused one', async () => {
    // Refusals at random (too many results, suggesting half the range), so the range keeps
    // shrinking and must grow back between them.
    const proxy = await startFaultyRpcProxy({ target: devnet.rpcUrl, seed: 'grow-back', faultRate: 0.3, faults: ['too_many_results'] });
    try {
      const { sizes, rangeShrinks } = await tokenRanges({ ...chain, rpcUrl: proxy.url, maxBlockRange: 8 });
      expect(proxy.stats.too_many_results, `range sizes ${sizes.join(',')}`).toBeGreaterThan(0);
      expect(rangeShrinks).toBe(proxy.stats.too_many_results);
      const grew = sizes.slice(1, -1).some((n, i) => n > sizes[i]!);
      expect(grew, `range sizes ${sizes.join(',')}`).toBe(true);
      expect(Math.max(...sizes)).toBe(8);
    } finally {
      await proxy.close();
    }
  });

  it('gives up with the provider\'s error when it refuses even a one-block range', { timeout: 30_000 }, async () => {
    // maxResults 0: every range holding a log is refused, down to a single block.
    const proxy = await startFaultyRpcProxy({ target: devnet.rpcUrl, seed: 'refuse-all', faultRate: 0, maxResults: 0 });
    try {
      await expect(tokenRanges({ ...chain, rpcUrl: proxy.url, maxBlockRange: 8 })).rejects.toBeInstanceOf(RangeTooLargeError);
    } finally {
      await proxy.close();
    }
  });

  it('a second ingest over the same blocks changes nothing, also with the contract addresses checksummed (as the base profile gives them)', async () => {
    const store = await ingestInto(chain);
    try {
      const snapshot = async () => store.read(`SELECT * FROM token_transfers ORDER BY block_number, log_index`);
      const before = await snapshot();
      await store.write((tx) => tx.run(`DELETE FROM ingest_cursors`));
      const checksummed = (c: { address: string; startBlock: number } | undefined) => c && { ...c, address: getAddress(c.address) };
      const { token, identityRegistry, reputationRegistry, permit2Proxy } = chain;
      await ingestChain({
        store,
        chain: { ...chain, token: checksummed(token)!, identityRegistry: checksummed(identityRegistry), reputationRegistry: checksummed(reputationRegistry), permit2Proxy: checksummed(permit2Proxy) },
        log: silentLogger,
      });
      expect(await snapshot()).toEqual(before);
      await expectTruth(store);
    } finally {
      await store.close();
    }
  });

  type RpcLog = { blockHash: string; transactionHash: string; topics: string[] };
  /**
   * A JSON-RPC proxy in front of the devnet that hands the first `times` non-empty results of
   * `method` to `tamper` and sends what it returns: logs that disagree with the blocks, as a node
   * serving a reorg under our feet does, or blocks written differently.
   */
  async function tamperingProxy<T>(method: string, tamper: (result: T) => T, times = Infinity) {
    const counts = { tampered: 0 };
    const server = await startLoopbackServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: number; method: string } | { id: number; method: string }[];
      const upstream = await fetch(devnet.rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const answer = (await upstream.json()) as { id: number; result?: unknown } | { id: number; result?: unknown }[];
      const calls = Array.isArray(body) ? body : [body];
      for (const a of Array.isArray(answer) ? answer : [answer]) {
        const empty = !a.result || (Array.isArray(a.result) && a.result.length === 0);
        if (calls.find((c) => c.id === a.id)?.method !== method || empty || counts.tampered >= times) continue;
        a.result = tamper(a.result as T);
        counts.tampered++;
      }
      sendJson(res, answer);
    });
    return { url: server.origin, counts };
  }

  it('stores senders lowercased when the node gives them checksummed, so known facilitators stay verified', async () => {
    type RpcBlock = { transactions: ({ from: string } | string)[] };
    const checksummed = (block: RpcBlock) => ({ ...block, transactions: block.transactions.map((t) => (typeof t === 'string' ? t : { ...t, from: getAddress(t.from) })) });
    const proxy = await tamperingProxy('eth_getBlockByNumber', checksummed);
    const store = await ingestInto({ ...chain, rpcUrl: proxy.url });
    try {
      await expectTruth(store);
    } finally {
      await store.close();
    }
  });

  const authorizationUsedTopic = '0x98de503528ee59b575ef0c0a2576a82497bfc029a5685b209e9ec333479b10a5';
  const tampers: [string, (logs: RpcLog[]) => RpcLog[]][] = [
    ['a log twice', (logs) => [...logs, logs[0]!]],
    ['a log whose block hash is not its block\'s', ([first, ...rest]) => [{ ...first!, blockHash: `0x${'11'.repeat(32)}` }, ...rest]],
    ['an authorisation whose transaction is not in its block', (logs) => logs.map((l) => (l.topics[0] === authorizationUsedTopic ? { ...l, transactionHash: `0x${'22'.repeat(32)}` } : l))],
  ];

  it('reads a range again when its logs disagree with its blocks, and stores the truth', async () => {
    const proxy = await tamperingProxy('eth_getLogs', tampers[0]![1], 1);
    const store = await ingestInto({ ...chain, rpcUrl: proxy.url });
    try {
      expect(proxy.counts.tampered).toBe(1);
      await expectTruth(store);
    } finally {
      await store.close();
    }
  });

  it.each(tampers)('gives up with InconsistentChunkError after reading a range 5 times that always has %s', async (_name, tamper) => {
    const proxy = await tamperingProxy('eth_getLogs', tamper);
    const store = await openStore({ dataDir: tempDataDir('inconsistent') });
    try {
      await expect(ingestChain({ store, chain: { ...chain, rpcUrl: proxy.url }, log: silentLogger })).rejects.toBeInstanceOf(InconsistentChunkError);
      expect(proxy.counts.tampered).toBe(5);
    } finally {
      await store.close();
    }
  });
});
