// Ingests every source of a chain: first rolls back a reorg if the node disagrees with what we
// stored, then each source up to the same head.
import { rpcUrlSetting, type ChainConfig } from '../config.ts';
import type { Store } from '../store/store.ts';
import type { Logger } from '../log.ts';
import { createRpc, type Rpc } from '../chain/rpc.ts';
import { ingestSource, type IngestProgress, type SourceResult } from './ingest-source.ts';
import { rollBackReorg } from './reorg.ts';
import { sourcesFor } from './sources.ts';
import type { SourceName } from './source-names.ts';
import { localChunkFetcher, type ChunkFetcher } from './fetch-chunk.ts';

export class ChainNotReachableError extends Error {
  override name = 'ChainNotReachableError';
}

export function createChainRpc(chain: ChainConfig): Rpc {
  if (!chain.rpcUrl) {
    throw new ChainNotReachableError(`chain ${chain.name} has no RPC URL: set ${rpcUrlSetting(chain.name)}`);
  }
  return createRpc({ url: chain.rpcUrl, concurrency: chain.rpcConcurrency, timeoutMs: chain.rpcTimeoutMs });
}

export async function ingestChain(deps: {
  store: Store;
  chain: ChainConfig;
  log: Logger;
  rpc?: Rpc;
  /** Where block ranges are read: in this process by default, or by remote workers. */
  fetchChunk?: ChunkFetcher;
  only?: SourceName;
  onProgress?: (progress: IngestProgress) => void;
}): Promise<SourceResult[]> {
  const rpc = deps.rpc ?? createChainRpc(deps.chain);
  const fetchChunk = deps.fetchChunk ?? localChunkFetcher(() => rpc);
  const log = deps.log.child(deps.chain.name);
  await rollBackReorg({ store: deps.store, rpc, chain: deps.chain.name, log });
  const head = await rpc.getBlockNumber();
  const results: SourceResult[] = [];
  for (const source of sourcesFor(deps.chain)) {
    if (deps.only && source.name !== deps.only) continue;
    results.push(await ingestSource({ store: deps.store, fetchChunk, chain: deps.chain, source, log, head, onProgress: deps.onProgress }));
  }
  return results;
}
