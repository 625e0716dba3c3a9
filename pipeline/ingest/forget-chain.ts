// Removes a chain's ingested rows from a block on, in every source, with the cursors and block
// records that covered them, so the next ingest reads those blocks again. Used to roll back a
// reorg, and when a chain was replaced (a restarted devnet).
import type { WriteTx } from '../store/group-commit.ts';
import { chainTables } from './sources.ts';

export async function forgetChainFrom(tx: WriteTx, chain: string, fromBlock = 0n): Promise<void> {
  for (const table of chainTables) {
    await tx.run(`DELETE FROM ${table} WHERE chain = $1 AND block_number >= $2`, [chain, fromBlock]);
  }
}
