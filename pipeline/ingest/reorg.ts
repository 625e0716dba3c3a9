// Reorg detection by stored block hashes. Before ingesting, the newest block we stored for the
// chain is compared with the node's block at that height; on a mismatch we walk our stored blocks
// downward until one matches the node (the common ancestor) and delete everything above it in
// every source, so the next ingest reads the new branch.
import type { Store } from '../store/store.ts';
import type { Logger } from '../log.ts';
import { BlockNotFoundError, type Rpc } from '../chain/rpc.ts';
import { forgetChainFrom } from './forget-chain.ts';

export interface ReorgResult {
  reorged: boolean;
  /** Highest block kept; -1 when nothing stored matched the node. */
  ancestor?: bigint;
}

// Stored blocks are checked in pages, newest first.
const page = 64;

export async function rollBackReorg(deps: { store: Store; rpc: Rpc; chain: string; log: Logger }): Promise<ReorgResult> {
  const { store, rpc, chain } = deps;
  let checkedBelow: bigint | null = null;
  let first = true;
  for (;;) {
    const rows = await store.read(
      `SELECT DISTINCT block_number::VARCHAR AS block, block_hash FROM chain_blocks
        WHERE chain = $1 AND ($2::BIGINT IS NULL OR block_number < $2)
        ORDER BY block_number DESC LIMIT ${page}`,
      [chain, checkedBelow],
    );
    if (rows.length === 0) break;
    for (const row of rows) {
      const number = BigInt(String(row.block));
      if (await nodeHasBlock(rpc, number, String(row.block_hash))) {
        if (first) return { reorged: false };
        await store.write((tx) => forgetChainFrom(tx, chain, number + 1n));
        deps.log.warn('reorg: rolled back to the common ancestor', { chain, ancestor: number });
        return { reorged: true, ancestor: number };
      }
      first = false;
      checkedBelow = number;
    }
  }
  if (first) return { reorged: false };
  await store.write((tx) => forgetChainFrom(tx, chain, 0n));
  deps.log.warn('reorg: no stored block is on the node any more; re-ingesting the chain', { chain });
  return { reorged: true, ancestor: -1n };
}

async function nodeHasBlock(rpc: Rpc, number: bigint, hash: string): Promise<boolean> {
  try {
    return (await rpc.getBlock(number)).hash === hash;
  } catch (err) {
    if (err instanceof BlockNotFoundError) return false;
    throw err;
  }
}
