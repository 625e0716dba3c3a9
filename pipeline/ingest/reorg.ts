// Reorg detection by stored block hashes. Before ingesting, each source's newest stored block is
// compared with the node's block at that height; on a mismatch we walk that source's stored
// blocks downward until one matches the node (the common ancestor). Sources are checked apart
// because one may have stored the old branch and another the new one in the same run. Everything
// above the lowest ancestor found is deleted in every source, so the next ingest reads the new
// branch. Each source cut back gets a cursor at the ancestor, whose rows it keeps: otherwise its
// newest cursor would be the end of an older range, below rows it still holds, and a scoring run
// until the next ingest would read rows above the cursor it records (docs/scoring.md, "Runs").
import { timestampValue } from '@duckdb/node-api';
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
  const { store, chain } = deps;
  const sources = await store.read(`SELECT DISTINCT source FROM chain_blocks WHERE chain = $1 ORDER BY source`, [chain]);
  let ancestor: bigint | null = null;
  for (const { source } of sources) {
    const found = await commonAncestor(deps, String(source));
    if (found !== null && (ancestor === null || found < ancestor)) ancestor = found;
  }
  if (ancestor === null) return { reorged: false };
  const kept = ancestor >= 0n ? await deps.rpc.getBlock(ancestor) : null;
  await store.write(async (tx) => {
    const cut = await tx.all(`SELECT DISTINCT source FROM ingest_cursors WHERE chain = $1 AND block_number > $2`, [chain, ancestor]);
    await forgetChainFrom(tx, chain, ancestor + 1n);
    // The node may have moved again since the check: a cursor only for the block as stored.
    const [same] = kept
      ? await tx.all('SELECT 1 FROM chain_blocks WHERE chain = $1 AND block_number = $2 AND block_hash = $3 LIMIT 1', [chain, kept.number, kept.hash])
      : [];
    if (!kept || !same) return;
    for (const { source } of cut) {
      await tx.run(
        `INSERT INTO chain_blocks SELECT $1, $2, $3, $4, $5
          WHERE NOT EXISTS (SELECT 1 FROM chain_blocks WHERE chain = $1 AND source = $5 AND block_number = $2)`,
        [chain, kept.number, kept.hash, timestampValue(kept.timestamp * 1_000_000n), String(source)],
      );
      await tx.run('INSERT INTO ingest_cursors VALUES ($1, $2, $3, $4, utc_now())', [chain, String(source), kept.number, kept.hash]);
    }
  });
  deps.log.warn('reorg: rolled back to the common ancestor', { chain, ancestor });
  return { reorged: true, ancestor };
}

/** null when the source's newest stored block is on the node; else the highest stored block that is (-1: none). */
async function commonAncestor(deps: { store: Store; rpc: Rpc; chain: string }, source: string): Promise<bigint | null> {
  let below: bigint | null = null;
  for (;;) {
    const rows = await deps.store.read(
      `SELECT block_number::VARCHAR AS block, block_hash FROM chain_blocks
        WHERE chain = $1 AND source = $2 AND ($3::BIGINT IS NULL OR block_number < $3)
        ORDER BY block_number DESC LIMIT ${page}`,
      [deps.chain, source, below],
    );
    if (rows.length === 0) return -1n;
    for (const row of rows) {
      const number = BigInt(String(row.block));
      if (await nodeHasBlock(deps.rpc, number, String(row.block_hash))) return below === null ? null : number;
      below = number;
    }
  }
}

async function nodeHasBlock(rpc: Rpc, number: bigint, hash: string): Promise<boolean> {
  try {
    return (await rpc.getBlock(number)).hash === hash;
  } catch (err) {
    if (err instanceof BlockNotFoundError) return false;
    throw err;
  }
}
