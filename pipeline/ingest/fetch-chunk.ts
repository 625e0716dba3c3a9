// The I/O half of ingestion: one block range of one source, read over JSON-RPC and checked.
// It needs no database, so it can run in the owner or in a `reputation worker` process, which
// hands the chunk back as a job result (encodeChunk/decodeChunk make it JSON-safe).
import type { Hash } from 'viem';
import type { ChainConfig } from '../config.ts';
import type { BlockInfo, Rpc } from '../chain/rpc.ts';
import { sourcesFor, type DecodedLog, type EvmSource } from './sources.ts';
import type { SourceName } from './source-names.ts';

export interface Chunk {
  logs: DecodedLog[];
  blocks: Map<bigint, BlockInfo>;
  /** The range's first block: its parent hash must be the hash the cursor recorded. */
  start: BlockInfo;
  end: BlockInfo;
}

export interface ChunkRequest {
  chain: ChainConfig;
  source: SourceName;
  from: bigint;
  to: bigint;
}

export type ChunkFetcher = (request: ChunkRequest) => Promise<Chunk>;

export class InconsistentChunkError extends Error {
  override name = 'InconsistentChunkError';
}

// A chunk whose logs disagree with the blocks fetched for it (a reorg under our feet) is
// fetched again this many times before the run gives up.
const chunkAttempts = 5;

export function sourceOf(chain: ChainConfig, name: SourceName): EvmSource {
  const source = sourcesFor(chain).find((s) => s.name === name);
  if (!source) throw new Error(`chain ${chain.name} has no ${name} source configured`);
  return source;
}

/** A fetcher that reads with `rpcFor(chain)` in this process. */
export function localChunkFetcher(rpcFor: (chain: ChainConfig) => Rpc): ChunkFetcher {
  return async ({ chain, source, from, to }) => {
    const rpc = rpcFor(chain);
    for (let attempt = 1; ; attempt++) {
      try {
        return await fetchChunk(rpc, sourceOf(chain, source), from, to);
      } catch (err) {
        if (!(err instanceof InconsistentChunkError) || attempt >= chunkAttempts) throw err;
      }
    }
  };
}

async function fetchChunk(rpc: Rpc, source: EvmSource, from: bigint, to: bigint): Promise<Chunk> {
  const logs = (await rpc.getLogs({ address: source.address, events: source.events, fromBlock: from, toBlock: to })) as unknown as DecodedLog[];
  const withSenders = new Set(logs.filter((l) => source.needsSender(l)).map((l) => l.blockNumber));
  const numbers = new Set([...logs.map((l) => l.blockNumber), from, to]);
  const fetched = await Promise.all([...numbers].map((n) => rpc.getBlock(n, withSenders.has(n))));
  const blocks = new Map(fetched.map((b) => [b.number, b]));
  validate(logs, blocks, source);
  return { logs, blocks, start: blocks.get(from)!, end: blocks.get(to)! };
}

// Responses are checked where they enter: a log must belong to the block we fetched for its
// number, appear once, and (for senders) its transaction must be in that block.
function validate(logs: DecodedLog[], blocks: Map<bigint, BlockInfo>, source: EvmSource): void {
  const seen = new Set<string>();
  for (const l of logs) {
    const block = blocks.get(l.blockNumber)!;
    if (l.blockHash !== block.hash) throw new InconsistentChunkError(`log in block ${l.blockNumber} has hash ${l.blockHash}, block has ${block.hash}`);
    const key = `${l.blockNumber}:${l.logIndex}`;
    if (seen.has(key)) throw new InconsistentChunkError(`duplicate log ${key}`);
    seen.add(key);
    if (source.needsSender(l) && !block.senders?.has(l.transactionHash)) {
      throw new InconsistentChunkError(`transaction ${l.transactionHash} is not in block ${l.blockNumber}`);
    }
  }
}

// JSON transport: bigints as {"$n": "…"}, maps as entry arrays.
export function encodeChunk(chunk: Chunk): string {
  const blocks = [...chunk.blocks.values()].map((b) => ({ ...b, senders: b.senders ? [...b.senders] : undefined }));
  return JSON.stringify({ logs: chunk.logs, blocks, start: chunk.start.number, end: chunk.end.number }, (_k, v: unknown) => (typeof v === 'bigint' ? { $n: v.toString() } : v));
}

export function decodeChunk(text: string): Chunk {
  const raw = JSON.parse(text, (_k, v: unknown) =>
    v && typeof v === 'object' && '$n' in v && Object.keys(v).length === 1 ? BigInt((v as { $n: string }).$n) : v,
  ) as { logs: DecodedLog[]; blocks: (Omit<BlockInfo, 'senders'> & { senders?: [Hash, `0x${string}`][] })[]; start: bigint; end: bigint };
  const blocks = new Map<bigint, BlockInfo>(raw.blocks.map((b) => [b.number, { ...b, senders: b.senders ? new Map(b.senders) : undefined }]));
  return { logs: raw.logs, blocks, start: blocks.get(raw.start)!, end: blocks.get(raw.end)! };
}
