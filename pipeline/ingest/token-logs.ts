// Ingests the configured token's Transfer and EIP-3009 AuthorizationUsed logs over JSON-RPC.
// Each chunk of blocks is written in one transaction together with its cursor, replacing whatever
// an earlier attempt stored for the same blocks, so a crash or a re-run changes nothing.
import { createPublicClient, http, parseAbi, type Log, type PublicClient } from 'viem';
import pLimit from 'p-limit';
import type { ChainConfig } from '../config.ts';
import type { Store } from '../store/store.ts';
import type { WriteTx } from '../store/group-commit.ts';
import type { Logger } from '../log.ts';
import { timestampValue } from '@duckdb/node-api';

export const tokenEvents = parseAbi([
  'event Transfer(address indexed from, address indexed to, uint256 value)',
  'event AuthorizationUsed(address indexed authorizer, bytes32 indexed nonce)',
]);

export const tokenSource = 'token';
const chunkSize = 2_000n;
const rpcConcurrency = 8;

export interface IngestProgress {
  chain: string;
  fromBlock: bigint;
  toBlock: bigint;
  doneBlock: bigint;
}

export interface IngestResult {
  chain: string;
  fromBlock: string;
  toBlock: string;
  transfers: number;
  authorizations: number;
}

export function createChainClient(chain: ChainConfig): PublicClient {
  if (!chain.rpcUrl) throw new Error(`chain ${chain.name} has no RPC URL: set RPC_URL_${chain.name.toUpperCase().replaceAll('-', '_')}`);
  return createPublicClient({ transport: http(chain.rpcUrl, { timeout: 20_000 }) });
}

/** Reads logs from the cursor up to head minus the confirmation depth and stores them. */
export async function ingestTokenLogs(deps: {
  store: Store;
  chain: ChainConfig;
  client?: PublicClient;
  log: Logger;
  onProgress?: (progress: IngestProgress) => void;
}): Promise<IngestResult> {
  const { store, chain, log } = deps;
  const client = deps.client ?? createChainClient(chain);
  const head = await client.getBlockNumber();
  const target = head - BigInt(chain.confirmations);
  const from = (await readCursor(store, chain.name)) + 1n;
  const result: IngestResult = { chain: chain.name, fromBlock: from.toString(), toBlock: target.toString(), transfers: 0, authorizations: 0 };
  for (let start = from; start <= target; start += chunkSize) {
    const end = start + chunkSize - 1n < target ? start + chunkSize - 1n : target;
    const chunk = await fetchChunk(client, chain, start, end);
    await store.write((tx) => writeChunk(tx, chain, start, end, chunk));
    result.transfers += chunk.transfers.length;
    result.authorizations += chunk.authorizations.length;
    deps.onProgress?.({ chain: chain.name, fromBlock: from, toBlock: target, doneBlock: end });
  }
  log.info('ingested token logs', { ...result });
  return result;
}

async function readCursor(store: Store, chain: string): Promise<bigint> {
  const [row] = await store.read(
    `SELECT block_number FROM ingest_cursors WHERE chain = $1 AND source = $2 ORDER BY recorded_at DESC, block_number DESC LIMIT 1`,
    [chain, tokenSource],
  );
  return row ? BigInt(String(row.block_number)) : -1n;
}

type TokenLog = Log<bigint, number, false, (typeof tokenEvents)[number], true>;

interface Chunk {
  transfers: TokenLog[];
  authorizations: TokenLog[];
  senders: Map<string, string>;
  blocks: Map<bigint, { hash: string; time: bigint }>;
  endHash: string;
}

async function fetchChunk(client: PublicClient, chain: ChainConfig, fromBlock: bigint, toBlock: bigint): Promise<Chunk> {
  const logs = (await client.getLogs({
    address: chain.token.address as `0x${string}`,
    events: tokenEvents,
    fromBlock,
    toBlock,
    strict: true,
  })) as TokenLog[];
  const transfers = logs.filter((l) => l.eventName === 'Transfer');
  const authorizations = logs.filter((l) => l.eventName === 'AuthorizationUsed');

  const limit = pLimit(rpcConcurrency);
  const txHashes = [...new Set(authorizations.map((l) => l.transactionHash))];
  const senders = new Map<string, string>();
  await Promise.all(
    txHashes.map((hash) =>
      limit(async () => senders.set(hash, (await client.getTransaction({ hash })).from.toLowerCase())),
    ),
  );
  const blockNumbers = new Set([...logs.map((l) => l.blockNumber), toBlock]);
  const blocks = new Map<bigint, { hash: string; time: bigint }>();
  await Promise.all(
    [...blockNumbers].map((number) =>
      limit(async () => {
        const block = await client.getBlock({ blockNumber: number });
        blocks.set(number, { hash: block.hash, time: block.timestamp });
      }),
    ),
  );
  return { transfers, authorizations, senders, blocks, endHash: blocks.get(toBlock)!.hash };
}

async function writeChunk(tx: WriteTx, chain: ChainConfig, from: bigint, to: bigint, chunk: Chunk): Promise<void> {
  const name = chain.name;
  for (const table of ['token_transfers', 'authorizations_used', 'transaction_senders']) {
    await tx.run(`DELETE FROM ${table} WHERE chain = $1 AND block_number BETWEEN $2 AND $3`, [name, from, to]);
  }
  await tx.run(`DELETE FROM chain_blocks WHERE chain = $1 AND source = $2 AND block_number BETWEEN $3 AND $4`, [name, tokenSource, from, to]);
  await tx.append(
    'chain_blocks',
    [...chunk.blocks].map(([number, b]) => [name, number, b.hash, timestampValue(b.time * 1_000_000n), tokenSource]),
  );
  await tx.append(
    'token_transfers',
    chunk.transfers.map((l) => {
      const args = l.args as { from: string; to: string; value: bigint };
      return [name, l.blockNumber, l.transactionHash, l.logIndex, l.address.toLowerCase(), args.from.toLowerCase(), args.to.toLowerCase(), args.value];
    }),
  );
  await tx.append(
    'authorizations_used',
    chunk.authorizations.map((l) => {
      const args = l.args as { authorizer: string; nonce: string };
      return [name, l.blockNumber, l.transactionHash, l.logIndex, l.address.toLowerCase(), args.authorizer.toLowerCase(), args.nonce];
    }),
  );
  const blockOf = new Map(chunk.authorizations.map((l) => [l.transactionHash as string, l.blockNumber]));
  await tx.append(
    'transaction_senders',
    [...chunk.senders].map(([hash, sender]) => [name, blockOf.get(hash)!, hash, sender]),
  );
  await tx.run('INSERT INTO ingest_cursors VALUES ($1, $2, $3, $4, now())', [name, tokenSource, to, chunk.endHash]);
}
