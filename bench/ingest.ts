// Chain ingestion: logs per second end to end (JSON-RPC → validated rows → DuckDB, with block
// timestamps and senders) against a bare viem getLogs loop over the same node, the same block
// range and the same chunking, in the same run.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createPublicClient, http } from 'viem';
import { startDevnet } from '../devnet/index.ts';
import { simulate } from '../devnet/simulate.ts';
import { loadConfig } from '../pipeline/config.ts';
import { silentLogger } from '../pipeline/log.ts';
import { openStore } from '../pipeline/store/store.ts';
import { ingestChain } from '../pipeline/ingest/ingest-chain.ts';
import { sourcesFor } from '../pipeline/ingest/sources.ts';

const agents = Number(process.env.BENCH_AGENTS ?? 150);
const payments = Number(process.env.BENCH_PAYMENTS ?? 1500);
const range = BigInt(process.env.BENCH_BLOCK_RANGE ?? 8);

export async function benchIngest(): Promise<Record<string, number>> {
  const devnet = await startDevnet({ port: 0 });
  const simulation = await simulate(devnet, { agents, payments, seed: 'bench' });
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-ingest-'));
  try {
    const chain = { ...loadConfig({ RPC_URL_DEVNET: devnet.rpcUrl }).chains.devnet!, maxBlockRange: Number(range) };
    const client = createPublicClient({ transport: http(devnet.rpcUrl) });
    const head = await client.getBlockNumber();

    // Baseline: the same getLogs calls, results counted and dropped.
    let start = performance.now();
    let baselineLogs = 0;
    for (const source of sourcesFor(chain)) {
      for (let from = source.startBlock; from <= head; from += range) {
        const to = from + range - 1n < head ? from + range - 1n : head;
        baselineLogs += (await client.getLogs({ address: source.address, events: source.events, fromBlock: from, toBlock: to })).length;
      }
    }
    const baselineSeconds = (performance.now() - start) / 1000;

    const store = await openStore({ dataDir: dir });
    start = performance.now();
    const results = await ingestChain({ store, chain, log: silentLogger });
    const oursSeconds = (performance.now() - start) / 1000;
    await store.close();
    const logs = results.reduce((n, r) => n + r.logs, 0);
    if (logs !== baselineLogs) throw new Error(`ingested ${logs} logs, getLogs saw ${baselineLogs}`);
    return {
      logs,
      blocks: Number(head) + 1,
      block_range: Number(range),
      getlogs_loop_logs_per_s: Math.round(baselineLogs / baselineSeconds),
      ingest_logs_per_s: Math.round(logs / oursSeconds),
      ratio_vs_getlogs_loop: Number((baselineSeconds / oursSeconds).toFixed(3)),
    };
  } finally {
    await simulation.registrationServer.close();
    await devnet.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
