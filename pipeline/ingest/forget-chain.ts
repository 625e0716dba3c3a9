// Removes a chain's ingested rows from a block on, with the cursors that covered them, so the
// next ingest reads those blocks again. Used when a chain was replaced (a restarted devnet).
import type { WriteTx } from '../store/group-commit.ts';

const chainTables = ['token_transfers', 'authorizations_used', 'transaction_senders', 'chain_blocks', 'ingest_cursors'];

export async function forgetChainFrom(tx: WriteTx, chain: string, fromBlock = 0n): Promise<void> {
  for (const table of chainTables) {
    await tx.run(`DELETE FROM ${table} WHERE chain = $1 AND block_number >= $2`, [chain, fromBlock]);
  }
}
