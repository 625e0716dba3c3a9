// Ingests one source of one chain from its cursor up to head minus the confirmation depth.
// Ranges start at the chain's maxBlockRange, shrink to what the provider accepts when it refuses,
// and grow back on success. Each chunk is written in one transaction with its cursor and block
// hashes, replacing whatever an earlier attempt stored for the same blocks: a crash or a re-run
// changes nothing.
import { timestampValue } from '@duckdb/node-api';
import type { ChainConfig } from '../config.ts';
import type { Store } from '../store/store.ts';
import type { WriteTx } from '../store/group-commit.ts';
import type { Logger } from '../log.ts';
import { RangeTooLargeError } from '../chain/rpc.ts';
import type { EvmSource } from './sources.ts';
import type { Chunk, ChunkFetcher } from './fetch-chunk.ts';
import { readCursor } from './cursors.ts';
import { sqlFile } from '../store/sql-files.ts';

export interface IngestProgress {
  chain: string;
  source: string;
  fromBlock: bigint;
  toBlock: bigint;
  doneBlock: bigint;
  logs: number;
  logsPerSecond: number;
  etaSeconds: number | null;
}

export interface SourceResult {
  chain: string;
  source: string;
  fromBlock: string;
  toBlock: string;
  /** Blocks in fromBlock..toBlock: 0 when nothing new was confirmed (toBlock is then below fromBlock). */
  blocks: number;
  logs: number;
  chunks: number;
  rangeShrinks: number;
}

const growth = 1.25;

export async function ingestSource(deps: {
  store: Store;
  fetchChunk: ChunkFetcher;
  chain: ChainConfig;
  source: EvmSource;
  log: Logger;
  head: bigint;
  onProgress?: (progress: IngestProgress) => void;
}): Promise<SourceResult> {
  const { store, chain, source } = deps;
  const target = deps.head - BigInt(chain.confirmations);
  const cursor = await readCursor(store, chain.name, source.name);
  const from = cursor ? cursor.block + 1n : source.startBlock;
  const maxRange = BigInt(chain.maxBlockRange);
  const result: SourceResult = { chain: chain.name, source: source.name, fromBlock: from.toString(), toBlock: target.toString(), blocks: from <= target ? Number(target - from + 1n) : 0, logs: 0, chunks: 0, rangeShrinks: 0 };
  const started = performance.now();

  // The next range is fetched while the current one is written, so RPC and DuckDB overlap.
  type Fetched = { start: bigint; end: bigint; outcome: Promise<{ chunk: Chunk } | { error: unknown }> };
  const fetchRange = (start: bigint, range: bigint): Fetched => {
    const end = start + range - 1n < target ? start + range - 1n : target;
    const outcome = deps.fetchChunk({ chain, source: source.name, from: start, to: end }).then(
      (chunk) => ({ chunk }),
      (error: unknown) => ({ error }),
    );
    return { start, end, outcome };
  };

  let range = maxRange;
  let next: Fetched | null = from <= target ? fetchRange(from, range) : null;
  while (next) {
    const { start, end } = next;
    const outcome = await next.outcome;
    next = null;
    if ('error' in outcome) {
      const err = outcome.error;
      if (!(err instanceof RangeTooLargeError) || range === 1n) throw err;
      result.rangeShrinks++;
      const suggested = err.suggestedBlocks;
      range = suggested && suggested < range ? suggested : range / 2n > 0n ? range / 2n : 1n;
      next = fetchRange(start, range);
      continue;
    }
    range = BigInt(Math.min(Number(maxRange), Math.ceil(Number(range) * growth)));
    if (end < target) next = fetchRange(end + 1n, range);
    const { chunk } = outcome;
    await store.write((tx) => writeChunk(tx, chain.name, source, start, end, chunk));
    result.logs += chunk.logs.length;
    result.chunks++;

    const seconds = (performance.now() - started) / 1000;
    const blocksDone = Number(end - from + 1n);
    const blocksLeft = Number(target - end);
    deps.onProgress?.({
      chain: chain.name,
      source: source.name,
      fromBlock: from,
      toBlock: target,
      doneBlock: end,
      logs: result.logs,
      logsPerSecond: seconds > 0 ? result.logs / seconds : 0,
      etaSeconds: blocksDone > 0 ? (blocksLeft * seconds) / blocksDone : null,
    });
  }
  if (result.chunks > 0) deps.log.info('ingested', { ...result });
  return result;
}

/** The chain moved under a running ingest (a reorg between two ranges, or another ingest of the same source). */
export class ChunkDoesNotFollowError extends Error {
  override name = 'ChunkDoesNotFollowError';
}

async function writeChunk(tx: WriteTx, chain: string, source: EvmSource, from: bigint, to: bigint, chunk: Chunk): Promise<void> {
  // Checked inside the write transaction: the range must continue exactly where the cursor
  // stands, on the same branch. Otherwise nothing is written; the next run's reorg check sorts
  // out the branch and reads again from the cursor.
  const [cursor] = await tx.all(sqlFile('ingest/newest_cursor'), [chain, source.name]);
  if (cursor) {
    if (BigInt(String(cursor.block)) !== from - 1n) throw new ChunkDoesNotFollowError(`${chain}/${source.name}: cursor at ${cursor.block}, range starts at ${from}`);
    if (chunk.start.parentHash !== cursor.block_hash) throw new ChunkDoesNotFollowError(`${chain}/${source.name}: block ${from} does not follow block ${cursor.block} (reorg)`);
  }
  for (const { table, scope } of source.tables) {
    await tx.run(`DELETE FROM ${table} WHERE chain = $1 AND block_number BETWEEN $2 AND $3 AND ${scope.column} = $4`, [chain, from, to, scope.value]);
  }
  await tx.run(`DELETE FROM chain_blocks WHERE chain = $1 AND source = $2 AND block_number BETWEEN $3 AND $4`, [chain, source.name, from, to]);

  for (const [table, rows] of Object.entries(source.rows(chunk.logs, chunk.blocks, chain))) {
    if (rows.length > 0) await tx.append(table, rows);
  }
  await tx.append(
    'chain_blocks',
    [...chunk.blocks.values()].map((b) => [chain, b.number, b.hash, timestampValue(b.timestamp * 1_000_000n), source.name]),
  );
  await tx.run('INSERT INTO ingest_cursors VALUES ($1, $2, $3, $4, utc_now())', [chain, source.name, to, chunk.end.hash]);
}
