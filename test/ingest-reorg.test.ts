// Reorgs: snapshot the devnet, ingest a branch, revert, mine a different branch, ingest again:
// the store must hold exactly the new branch.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keccak256, parseEventLogs, parseUnits, stringToBytes, zeroHash, type Address } from 'viem';
import { startDevnet, type Devnet } from '../devnet/index.ts';
import { runThinScenario } from '../devnet/scenario.ts';
import { devnetClients } from '../devnet/clients.ts';
import { payWithAuthorization } from '../devnet/x402.ts';
import { loadArtifact } from '../devnet/artifacts.ts';
import { loadConfig } from '../pipeline/config.ts';
import { silentLogger } from '../pipeline/log.ts';
import { openStore, type Store } from '../pipeline/store/store.ts';
import { ChainNotReachableError, createChainRpc, ingestChain } from '../pipeline/ingest/ingest-chain.ts';
import { ChunkDoesNotFollowError, ingestSource, type IngestProgress } from '../pipeline/ingest/ingest-source.ts';
import { localChunkFetcher, sourceOf } from '../pipeline/ingest/fetch-chunk.ts';
import { chainTables, tokenEvents } from '../pipeline/ingest/sources.ts';
import { forgetChainFrom } from '../pipeline/ingest/forget-chain.ts';
import { rollBackReorg } from '../pipeline/ingest/reorg.ts';
import { tempDataDir } from './helpers/temp.ts';

describe('reorg handling', () => {
  let devnet: Devnet;
  let store: Store;
  beforeAll(async () => {
    devnet = await startDevnet({ port: 0 });
    await runThinScenario(devnet);
    store = await openStore({ dataDir: tempDataDir('reorg') });
  });
  afterAll(async () => {
    await store?.close();
    await devnet?.close();
  });

  async function branch(label: string, payer: number, payee: number, count: number) {
    const { publicClient, walletClient } = devnetClients(devnet);
    for (let i = 0; i < count; i++) {
      await payWithAuthorization({
        publicClient,
        walletClient,
        token: devnet.token.address,
        payer: devnet.accounts[payer]!,
        to: devnet.accounts[payee]!.address,
        value: parseUnits('1', 6),
        facilitator: devnet.facilitators[0]!,
        nonce: keccak256(stringToBytes(`${label}:${i}`)),
      });
    }
  }

  /** An agent registered by account 1 and rated by account 2: rows of the identity and reputation sources. */
  async function agentWithFeedback() {
    const { publicClient, walletClient } = devnetClients(devnet);
    const identity = loadArtifact('IdentityRegistry').abi;
    const register = await walletClient.writeContract({ chain: null, account: devnet.accounts[1]!, address: devnet.identityRegistry.address, abi: identity, functionName: 'register', args: ['https://agent.example/a.json'] });
    const [registered] = parseEventLogs({ abi: identity, logs: (await publicClient.waitForTransactionReceipt({ hash: register })).logs, eventName: 'Registered' });
    const args = [registered!.args.agentId, 90n, 0, 'quality', '', '', '', zeroHash] as const;
    const feedback = await walletClient.writeContract({ chain: null, account: devnet.accounts[2]!, address: devnet.reputationRegistry.address, abi: loadArtifact('ReputationRegistry').abi, functionName: 'giveFeedback', args });
    await publicClient.waitForTransactionReceipt({ hash: feedback });
  }

  async function chainTransferHashes(): Promise<string[]> {
    const { publicClient } = devnetClients(devnet);
    const logs = await publicClient.getLogs({ address: devnet.token.address, events: tokenEvents, fromBlock: 0n, toBlock: 'latest' });
    return logs.filter((l) => l.eventName === 'Transfer').map((l) => `${l.transactionHash}:${l.logIndex}`).sort();
  }

  async function storedTransferHashes(): Promise<string[]> {
    const rows = await store.read(`SELECT tx_hash || ':' || log_index AS k FROM token_transfers ORDER BY k`);
    return rows.map((r) => String(r.k));
  }

  it('rolls back to the common ancestor and ingests the new branch', async () => {
    const { testClient } = devnetClients(devnet);
    const config = loadConfig({ DATA_DIR: '/unused', RPC_URL_DEVNET: devnet.rpcUrl });
    const chain = { ...config.chains.devnet!, maxBlockRange: 4 };
    const ingest = () => ingestChain({ store, chain, log: silentLogger });

    await ingest();
    // A payment both branches share, not yet ingested: the fork comes after it, inside the range
    // the next ingest writes with branch A, so the ancestor is not where any cursor stood.
    await branch('shared', 3, 10, 1);
    const snapshot = await testClient.snapshot();
    await branch('branch-a', 1, 9, 4);
    await agentWithFeedback();
    await ingest();
    const withA = await storedTransferHashes();
    expect(withA).toEqual(await chainTransferHashes());

    await testClient.revert({ id: snapshot });
    await branch('branch-b', 2, 11, 2);
    await testClient.mine({ blocks: 5 });

    // The rollback keeps what lies below the fork and puts every source's cursor at the common
    // ancestor, the newest block stored on both branches, so no row stands above a cursor.
    const rpc = createChainRpc(chain);
    const { ancestor } = await rollBackReorg({ store, rpc, chain: 'devnet', log: silentLogger });
    const ancestorBlock = await rpc.getBlock(ancestor!);
    const afterRollback = await store.read(
      `SELECT source, max(block_number)::VARCHAR AS block, arg_max(block_hash, block_number) AS hash FROM ingest_cursors GROUP BY source ORDER BY source`,
    );
    expect(afterRollback.map((c) => c.source)).toEqual(['identity', 'permit2', 'reputation', 'token']);
    for (const c of afterRollback) expect(c).toMatchObject({ block: String(ancestor), hash: ancestorBlock.hash });
    // Every table of chain rows, whether or not the rollback knows it.
    const tables = await store.read(
      `SELECT table_name FROM information_schema.columns c JOIN information_schema.tables USING (table_schema, table_name)
        WHERE table_type = 'BASE TABLE' AND column_name = 'block_number' ORDER BY table_name`,
    );
    expect(tables.length).toBeGreaterThanOrEqual(chainTables.length);
    for (const { table_name: table } of tables) {
      const [above] = await store.read(`SELECT count(*)::INTEGER AS n FROM ${table} WHERE block_number > $1`, [ancestor!]);
      expect(above, String(table)).toEqual({ n: 0 });
    }
    const [kept] = await store.read(`SELECT count(*)::INTEGER AS n FROM token_transfers`);
    expect(kept!.n).toBeGreaterThan(0);
    await ingest();

    const stored = await storedTransferHashes();
    expect(stored).toEqual(await chainTransferHashes());
    // Branch A's payments are gone from every table, not just transfers.
    const branchAOnly = withA.filter((k) => !stored.includes(k)).map((k) => k.split(':')[0]!);
    expect(branchAOnly).toHaveLength(4);
    const [left] = await store.read(
      `SELECT (SELECT count(*) FROM authorizations_used WHERE list_contains(string_split($1, ','), tx_hash))::INTEGER
            + (SELECT count(*) FROM transaction_senders WHERE list_contains(string_split($1, ','), tx_hash))::INTEGER AS n`,
      [branchAOnly.join(',')],
    );
    expect(left).toEqual({ n: 0 });
    // Each source's cursor is at the new head with the new head's hash.
    const { publicClient } = devnetClients(devnet);
    const head = await publicClient.getBlock();
    const cursors = await store.read(`SELECT source, max(block_number)::VARCHAR AS block, arg_max(block_hash, block_number) AS hash FROM ingest_cursors GROUP BY source ORDER BY source`);
    for (const c of cursors) expect(c).toMatchObject({ block: String(head.number), hash: head.hash });
    expect(await balancesFromStore(store, devnet.accounts[11]!.address)).toBe(2_000_000n);
    expect(await balancesFromStore(store, devnet.accounts[9]!.address)).toBe(50_000n);
  });
});

/**
 * A fresh devnet and store, the devnet chain with ranges of 4 blocks, `pay(label, to)`: a
 * facilitator-settled payment of 1 USDC from account 1 to account `to`, and
 * `forkAfterTokenIngest(mined)`: the token source ingests a payment to account 9, then the chain
 * forks from before it, with a payment to account 8 and `mined` more blocks. The devnet and the
 * store are closed after `body`.
 */
async function withSmallRangeDevnet(
  name: string,
  body: (t: {
    devnet: Devnet;
    store: Store;
    chain: ReturnType<typeof smallRangeChain>;
    testClient: ReturnType<typeof devnetClients>['testClient'];
    pay: (label: string, to: number) => Promise<unknown>;
    forkAfterTokenIngest: (mined: number) => Promise<void>;
  }) => Promise<void>,
): Promise<void> {
  const devnet = await startDevnet({ port: 0 });
  const store = await openStore({ dataDir: tempDataDir(name) });
  try {
    const { testClient, publicClient, walletClient } = devnetClients(devnet);
    const chain = smallRangeChain(devnet);
    const pay = (label: string, to: number) =>
      payWithAuthorization({ publicClient, walletClient, token: devnet.token.address, payer: devnet.accounts[1]!, to: devnet.accounts[to]!.address, value: 1_000_000n, facilitator: devnet.facilitators[0]!, nonce: keccak256(stringToBytes(label)) });
    const forkAfterTokenIngest = async (mined: number) => {
      const snapshot = await testClient.snapshot();
      await pay('old-branch', 9);
      await ingestChain({ store, chain, log: silentLogger, only: 'token' });
      await testClient.revert({ id: snapshot });
      await pay('new-branch', 8);
      await testClient.mine({ blocks: mined });
    };
    await body({ devnet, store, chain, testClient, pay, forkAfterTokenIngest });
  } finally {
    await store.close();
    await devnet.close();
  }
}

const smallRangeChain = (devnet: Devnet) => ({ ...loadConfig({ RPC_URL_DEVNET: devnet.rpcUrl }).chains.devnet!, maxBlockRange: 4 });

describe('reorg seen by one source only', () => {
  it('rolls back a source that stored the old branch even when another stored the new one', () =>
    withSmallRangeDevnet('reorg-sources', async ({ devnet, store, chain, forkAfterTokenIngest }) => {
      await forkAfterTokenIngest(3);
      // The identity source reads the new branch in a run that began before the reorg (so no
      // reorg check ran in between): it now holds new-branch blocks, newer than the token's.
      const rpc = createChainRpc(chain);
      await ingestSource({ store, fetchChunk: localChunkFetcher(() => rpc), chain, source: sourceOf(chain, 'identity'), log: silentLogger, head: await rpc.getBlockNumber() });

      await ingestChain({ store, chain, log: silentLogger });
      expect(await balancesFromStore(store, devnet.accounts[9]!.address)).toBe(0n);
      expect(await balancesFromStore(store, devnet.accounts[8]!.address)).toBe(1_000_000n);
    }));
});

describe('sources that stored different forks', () => {
  // Two reorgs: the identity source stored branch P, the token source branch R and then R above
  // the point where R' replaced it. The token source's stored blocks match the node up to that
  // point, the identity source's only up to where P began: the rollback goes to the lower one, or
  // the identity source would keep P's rows.
  it('rolls every source back to the lowest common ancestor any of them found', () =>
    withSmallRangeDevnet('reorg-two-forks', async ({ devnet, store, chain, testClient, pay }) => {
      const { publicClient, walletClient } = devnetClients(devnet);
      const rpc = createChainRpc(chain);
      const ingestOne = async (source: 'identity' | 'token') =>
        ingestSource({ store, fetchChunk: localChunkFetcher(() => rpc), chain, source: sourceOf(chain, source), log: silentLogger, head: await rpc.getBlockNumber() });
      await ingestChain({ store, chain, log: silentLogger });
      const start = await rpc.getBlockNumber();

      const beforeP = await testClient.snapshot();
      const identity = loadArtifact('IdentityRegistry').abi;
      const register = await walletClient.writeContract({ chain: null, account: devnet.accounts[1]!, address: devnet.identityRegistry.address, abi: identity, functionName: 'register', args: ['https://branch-p.example/agent.json'] });
      await publicClient.waitForTransactionReceipt({ hash: register });
      await testClient.mine({ blocks: 9 });
      await ingestOne('identity');
      expect(await store.read(`SELECT count(*)::INTEGER AS n FROM agent_registrations`)).toEqual([{ n: 1 }]);

      await testClient.revert({ id: beforeP });
      await pay('branch-r', 8);
      await testClient.mine({ blocks: 9 });
      const beforeRPrime = await testClient.snapshot();
      await testClient.mine({ blocks: 5 });
      await ingestOne('token');
      await testClient.revert({ id: beforeRPrime });
      await pay('branch-r-prime', 7);
      await testClient.mine({ blocks: 9 });

      expect(await rollBackReorg({ store, rpc, chain: 'devnet', log: silentLogger })).toEqual({ reorged: true, ancestor: start });
      await ingestChain({ store, chain, log: silentLogger });
      expect(await store.read(`SELECT count(*)::INTEGER AS n FROM agent_registrations`)).toEqual([{ n: 0 }]);
      expect(await balancesFromStore(store, devnet.accounts[8]!.address)).toBe(1_000_000n);
      expect(await balancesFromStore(store, devnet.accounts[7]!.address)).toBe(1_000_000n);
    }));
});

describe('a fork deeper than a page of stored blocks', () => {
  it('pages down past a page of stored blocks none of which is on the node', () =>
    withSmallRangeDevnet('reorg-deep', async ({ devnet, store, chain, testClient, pay }) => {
      const rpc = createChainRpc(chain);
      const oneBlockRanges = { ...chain, maxBlockRange: 1 };
      await ingestChain({ store, chain: oneBlockRanges, log: silentLogger, only: 'token' });
      const start = await rpc.getBlockNumber();
      const kept = await store.read(`SELECT count(*)::INTEGER AS n FROM chain_blocks`);

      const snapshot = await testClient.snapshot();
      await pay('old-branch', 9);
      await testClient.mine({ blocks: 79 });
      await ingestChain({ store, chain: oneBlockRanges, log: silentLogger, only: 'token' });
      // A stored block for each of the 80 blocks of the old branch: more than one page (64).
      expect(await store.read(`SELECT count(*)::INTEGER AS n FROM chain_blocks WHERE block_number > $1`, [start])).toEqual([{ n: 80 }]);
      await testClient.revert({ id: snapshot });
      await pay('new-branch', 8);
      await testClient.mine({ blocks: 85 });

      expect(await rollBackReorg({ store, rpc, chain: 'devnet', log: silentLogger })).toEqual({ reorged: true, ancestor: start });
      // Nothing at or below the ancestor was lost.
      expect(await store.read(`SELECT count(*)::INTEGER AS n FROM chain_blocks`)).toEqual(kept);
      await ingestChain({ store, chain, log: silentLogger, only: 'token' });
      expect(await balancesFromStore(store, devnet.accounts[9]!.address)).toBe(0n);
      expect(await balancesFromStore(store, devnet.accounts[8]!.address)).toBe(1_000_000n);
    }));
});

describe('a reorg between the reorg check and a range', () => {
  it('writes nothing when a range does not follow the cursor\'s block: ChunkDoesNotFollowError', () =>
    withSmallRangeDevnet('reorg-under-ingest', async ({ devnet, store, chain, forkAfterTokenIngest }) => {
      await forkAfterTokenIngest(6);
      const snapshotOf = async () => ({
        cursors: await store.read(`SELECT block_number::VARCHAR AS b, block_hash FROM ingest_cursors ORDER BY b, block_hash`),
        transfers: await store.read(`SELECT tx_hash, log_index FROM token_transfers ORDER BY tx_hash, log_index`),
        blocks: await store.read(`SELECT block_number::VARCHAR AS b, block_hash FROM chain_blocks ORDER BY b`),
      });
      const before = await snapshotOf();
      // No reorg check first (as when the chain reorgs while a run is under way).
      const rpc = createChainRpc(chain);
      await expect(
        ingestSource({ store, fetchChunk: localChunkFetcher(() => rpc), chain, source: sourceOf(chain, 'token'), log: silentLogger, head: await rpc.getBlockNumber() }),
      ).rejects.toBeInstanceOf(ChunkDoesNotFollowError);
      expect(await snapshotOf()).toEqual(before);
      // The next run's reorg check sorts it out.
      await ingestChain({ store, chain, log: silentLogger, only: 'token' });
      expect(await balancesFromStore(store, devnet.accounts[9]!.address)).toBe(0n);
      expect(await balancesFromStore(store, devnet.accounts[8]!.address)).toBe(1_000_000n);
    }));
});

describe('a restarted devnet', () => {
  it('rolls back the stored blocks past its head (the node has no such block) to the common ancestor, and reads on from there', () =>
    withSmallRangeDevnet('restarted', async ({ store, chain, pay }) => {
      await pay('before-restart', 9);
      await ingestChain({ store, chain, log: silentLogger });
      // The restarted devnet has fewer blocks than the store holds.
      const restarted = await startDevnet({ port: 0 });
      try {
        const replaced = smallRangeChain(restarted);
        const rpc = createChainRpc(replaced);
        const [stored] = await store.read(`SELECT max(block_number)::VARCHAR AS b FROM chain_blocks`);
        expect(BigInt(String(stored!.b))).toBeGreaterThan(await rpc.getBlockNumber());
        const { reorged, ancestor } = await rollBackReorg({ store, rpc, chain: 'devnet', log: silentLogger });
        expect(reorged).toBe(true);
        const [above] = await store.read(`SELECT count(*)::INTEGER AS n FROM chain_blocks WHERE block_number > $1`, [ancestor!]);
        expect(above).toEqual({ n: 0 });
        await ingestChain({ store, chain: replaced, log: silentLogger });
        expect(await balancesFromStore(store, restarted.accounts[9]!.address)).toBe(0n);
      } finally {
        await restarted.close();
      }
    }));
});

describe('no reorg', () => {
  it('rolls nothing back when every source\'s newest block is on the node, whatever their heights', () =>
    withSmallRangeDevnet('no-reorg', async ({ store, chain, testClient, pay }) => {
      await pay('no-reorg', 9);
      await ingestChain({ store, chain, log: silentLogger, only: 'token' });
      await testClient.mine({ blocks: 6 });
      // The identity source is ingested further than the token source: both are on the node.
      await ingestChain({ store, chain, log: silentLogger, only: 'identity' });
      const state = () =>
        store.read(
          `SELECT source, max(block_number)::VARCHAR AS block, count(*)::INTEGER AS blocks FROM chain_blocks GROUP BY source ORDER BY source`,
        );
      const before = await state();
      expect(before.map((r) => r.source)).toEqual(['identity', 'token']);
      expect(Number(before[0]!.block)).toBeGreaterThan(Number(before[1]!.block));

      const rpc = createChainRpc(chain);
      expect(await rollBackReorg({ store, rpc, chain: 'devnet', log: silentLogger })).toEqual({ reorged: false });
      expect(await state()).toEqual(before);
    }));
});

describe('what an ingest reports', () => {
  it('a chain without an RPC URL: ChainNotReachableError naming the setting to set', () => {
    const chain = { ...loadConfig({ RPC_URL_DEVNET: 'http://127.0.0.1:1' }).chains.devnet!, rpcUrl: undefined };
    expect(() => createChainRpc(chain)).toThrow(ChainNotReachableError);
    expect(() => createChainRpc(chain)).toThrow(/^chain devnet has no RPC URL: set RPC_URL_DEVNET$/);
  });

  it('the blocks read in ranges of maxBlockRange, with progress to the end; one new block; 0 blocks when nothing new is confirmed', () =>
    withSmallRangeDevnet('results', async ({ store, chain, pay }) => {
      const head = await createChainRpc(chain).getBlockNumber();
      const progress: IngestProgress[] = [];
      const [first] = await ingestChain({ store, chain, log: silentLogger, only: 'token', onProgress: (p) => progress.push(p) });
      const chunks = Math.ceil((Number(head) + 1) / 4);
      expect(first).toMatchObject({ source: 'token', fromBlock: '0', toBlock: String(head), blocks: Number(head) + 1, chunks, rangeShrinks: 0 });
      expect(progress.map((p) => p.doneBlock)).toEqual(Array.from({ length: chunks }, (_, i) => (i === chunks - 1 ? head : BigInt(i * 4 + 3))));
      // The time left is estimated until the last range, which leaves none.
      expect(progress.slice(0, -1).every((p) => p.etaSeconds! > 0)).toBe(true);
      expect(progress.at(-1)!.etaSeconds).toBe(0);

      await pay('one-more', 9);
      const [next] = await ingestChain({ store, chain, log: silentLogger, only: 'token' });
      expect(next).toMatchObject({ fromBlock: String(head + 1n), toBlock: String(head + 1n), blocks: 1, logs: 2, chunks: 1 });
      // Asking for more confirmations than the blocks read since: nothing to read, not a negative count.
      const [none] = await ingestChain({ store, chain: { ...chain, confirmations: 3 }, log: silentLogger, only: 'token' });
      expect(none).toMatchObject({ fromBlock: String(head + 2n), toBlock: String(head - 2n), blocks: 0, logs: 0, chunks: 0 });
    }));
});

describe('two chains in one store', () => {
  it('each keeps its own cursors and rows: ingesting, re-checking and forgetting one leaves the other as it was', () =>
    withSmallRangeDevnet('two-chains', async ({ store, chain, pay }) => {
      await pay('two-chains', 9);
      await ingestChain({ store, chain, log: silentLogger });
      const rowsOf = async (name: string) => {
        const rows: Record<string, unknown[]> = {};
        for (const table of chainTables) rows[table] = await store.read(`SELECT * EXCLUDE (chain) FROM ${table} WHERE chain = $1 ORDER BY ALL`, [name]);
        return rows;
      };
      const devnetRows = await rowsOf('devnet');

      // Another node (a fresh devnet, shorter, at the same contract addresses) as chain "other", without a Permit2 proxy.
      const otherNode = await startDevnet({ port: 0 });
      try {
        const other = { ...smallRangeChain(otherNode), name: 'other', permit2Proxy: undefined };
        await ingestChain({ store, chain: other, log: silentLogger });
        const { publicClient } = devnetClients(otherNode);
        const transfers = await publicClient.getLogs({ address: otherNode.token.address, events: tokenEvents, fromBlock: 0n, toBlock: 'latest' });
        const [stored] = await store.read(`SELECT count(*)::INTEGER AS n FROM token_transfers WHERE chain = 'other'`);
        expect(stored).toEqual({ n: transfers.length });
        expect(transfers.length).toBeGreaterThan(0);
        // Its next run finds no reorg (though the store holds blocks above its head, of the other chain) and nothing new.
        expect(await rollBackReorg({ store, rpc: createChainRpc(other), chain: 'other', log: silentLogger })).toEqual({ reorged: false });
        const again = await ingestChain({ store, chain: other, log: silentLogger });
        expect(again.map((r) => [r.source, r.blocks])).toEqual([['token', 0], ['identity', 0], ['reputation', 0]]);
        expect(await rowsOf('devnet')).toEqual(devnetRows);

        await store.write((tx) => forgetChainFrom(tx, 'other'));
        const left = await rowsOf('other');
        expect(Object.values(left).flat()).toEqual([]);
        expect(await rowsOf('devnet')).toEqual(devnetRows);
      } finally {
        await otherNode.close();
      }
    }));
});

async function balancesFromStore(store: Store, address: Address): Promise<bigint> {
  const [row] = await store.read(`SELECT coalesce(sum(value), 0)::VARCHAR AS v FROM x402_payments WHERE payee = $1`, [address.toLowerCase()]);
  return BigInt(String(row!.v));
}
