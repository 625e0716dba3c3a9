// Scoring over the synthetic data set (bench/score-data.ts: 1M addresses, 10M x402 payments, 20k
// agents by default), against a plain `GROUP BY from_address` over the same transfers in the same
// run: the first run (which also builds the payments table and its aggregates from the view),
// then twice one more hour of blocks touching 1% of the addresses and an incremental run, then a full
// run (`score --full`: every address rescored from the kept aggregates), and peak memory; with
// each run's time per step, and the checkpoint each run leaves behind, timed apart. The targets:
// full run <= 3x the baseline, incremental <= 0.1x the full run. A second baseline, the floor,
// times only the writes an incremental run cannot avoid (replacementFloor below).
//
// The data is generated in a child process, so this process's peak RSS is the scoring's (and the
// baseline's) alone, not the generator's.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { openStore, type Store } from '../pipeline/store/store.ts';
import { runScoring } from '../pipeline/score/run.ts';
import { applyScoreIncrement, scoreDataSize } from './score-data.ts';

const generator = fileURLToPath(new URL('./score-data.ts', import.meta.url));
const mib = (bytes: number) => Math.round(bytes / 2 ** 20);
const seconds = (ms: number) => Number((ms / 1000).toFixed(2));

export async function benchScore(): Promise<Record<string, number>> {
  const size = scoreDataSize();
  const dir = mkdtempSync(path.join(tmpdir(), 'bench-score-'));
  try {
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', generator, dir], { maxBuffer: 1 << 20 });
    const generated = JSON.parse(stdout) as { generate_ms: number; checkpoint_ms: number };

    const store = await openStore({ dataDir: dir });
    try {
      const baselineMs = Math.min(...(await repeat(3, () => groupByBaseline(store))));

      const steps: Record<string, number> = {};
      const onStep = (kind: string) => (step: string, ms: number) => void (steps[`${kind}_step_${step}_s`] = seconds(ms));

      let memory = sampleMemory(store);
      let started = performance.now();
      await runScoring(store, { onStep: onStep('first') });
      const firstMs = performance.now() - started;
      const firstMemory = await memory.stop();
      // Not charged to the incremental run: the first run's own leftover checkpoint.
      await checkpoint(store);

      // The first incremental run after the rebuild pays for things a run every minute does not
      // (about twice the next one): timed and reported, but the ratio is of the run after it.
      await applyScoreIncrement(store, size);
      started = performance.now();
      const afterRebuild = await runIncremental(store, onStep('after_rebuild'));
      const afterRebuildMs = performance.now() - started;
      await checkpoint(store);

      await applyScoreIncrement(store, size);
      memory = sampleMemory(store);
      started = performance.now();
      const incremental = await runIncremental(store, onStep('incremental'));
      const incrementalMs = performance.now() - started;
      const incrementalMemory = await memory.stop();
      const incrementalCheckpointMs = await checkpoint(store);
      const floor = await replacementFloor(store, incremental.runId);

      memory = sampleMemory(store);
      started = performance.now();
      const full = await runScoring(store, { full: true, onStep: onStep('full') });
      const fullMs = performance.now() - started;
      const fullMemory = await memory.stop();
      const fullCheckpointMs = await checkpoint(store);

      const [limit] = await store.read(`SELECT current_setting('memory_limit') AS limit`);
      return {
        addresses: size.addresses,
        transfers: size.transfers,
        agents: size.agents,
        generate_s: seconds(generated.generate_ms),
        checkpoint_s: seconds(generated.checkpoint_ms),
        baseline_group_by_s: seconds(baselineMs),
        first_run_s: seconds(firstMs),
        full_run_s: seconds(fullMs),
        full_address_count: full.addressCount,
        incremental_after_rebuild_s: seconds(afterRebuildMs),
        incremental_after_rebuild_rescored: afterRebuild.rescoredCount,
        incremental_run_s: seconds(incrementalMs),
        incremental_rescored: incremental.rescoredCount,
        ratio_full_vs_baseline: Number((fullMs / baselineMs).toFixed(2)),
        ratio_incremental_vs_full: Number((incrementalMs / fullMs).toFixed(3)),
        incremental_checkpoint_s: seconds(incrementalCheckpointMs),
        full_checkpoint_s: seconds(fullCheckpointMs),
        ratio_incremental_vs_full_with_checkpoints: Number(((incrementalMs + incrementalCheckpointMs) / (fullMs + fullCheckpointMs)).toFixed(3)),
        floor_replaced_addresses: floor.addresses,
        floor_s: seconds(floor.ms),
        floor_checkpoint_s: seconds(floor.checkpointMs),
        ratio_floor_vs_full: Number((floor.ms / fullMs).toFixed(3)),
        ratio_incremental_vs_floor: Number((incrementalMs / floor.ms).toFixed(2)),
        first_run_peak_rss_mib: firstMemory.rss,
        full_run_peak_rss_mib: fullMemory.rss,
        full_run_peak_duckdb_mib: fullMemory.duckdb,
        incremental_run_peak_rss_mib: incrementalMemory.rss,
        incremental_run_peak_duckdb_mib: incrementalMemory.duckdb,
        process_peak_rss_mib: Math.round(process.resourceUsage().maxRSS / 1024),
        duckdb_memory_limit_mib: parseMemoryLimit(String(limit!.limit)),
        ...steps,
      };
    } finally {
      await store.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function runIncremental(store: Store, onStep: (step: string, ms: number) => void) {
  const run = await runScoring(store, { onStep });
  if (run.kind !== 'incremental') throw new Error(`the run after the increment was ${run.kind}, not incremental`);
  return run;
}

// The baseline: one aggregate over the same transfers, every group materialised.
async function groupByBaseline(store: Store): Promise<number> {
  return store.withReadConnection(async (conn) => {
    const started = performance.now();
    await conn.run(
      `CREATE OR REPLACE TEMP TABLE bench_baseline AS
       SELECT from_address, count(*) AS transfers, sum(value) AS value FROM token_transfers GROUP BY from_address`,
    );
    const ms = performance.now() - started;
    await conn.run('DROP TABLE bench_baseline');
    return ms;
  });
}

// The least an incremental run can cost with these tables: replacing the rows of the addresses it
// rescored in the per-address tables (payment_facts, chain_scores, address_scores) and committing,
// with the new rows already made. Each DELETE finds its rows by scanning the table's address
// column, as the run's own statements do: DuckDB reaches rows through a join only by scanning.
// The rows put back are the same, so the state the full run starts from is unchanged.
const floorTables = ['payment_facts', 'chain_scores', 'address_scores'];
async function replacementFloor(store: Store, runId: number): Promise<{ addresses: number; ms: number; checkpointMs: number }> {
  const [{ n }] = (await store.write(async (tx) => {
    await tx.run('CREATE OR REPLACE TEMP TABLE floor_addresses AS SELECT address FROM address_scores WHERE run_id = $1', [runId]);
    for (const table of floorTables) {
      await tx.run(`CREATE OR REPLACE TEMP TABLE floor_${table} AS SELECT * FROM ${table} WHERE address IN (SELECT address FROM floor_addresses)`);
    }
    return tx.all('SELECT count(*)::INTEGER AS n FROM floor_addresses');
  })) as [{ n: number }];
  const started = performance.now();
  await store.write(async (tx) => {
    for (const table of floorTables) {
      await tx.run(`DELETE FROM ${table} WHERE address IN (SELECT address FROM floor_addresses)`);
      await tx.run(`INSERT INTO ${table} SELECT * FROM floor_${table}`);
    }
  });
  const ms = performance.now() - started;
  await store.write(async (tx) => {
    for (const table of ['addresses', ...floorTables]) await tx.run(`DROP TABLE temp.floor_${table}`);
  });
  return { addresses: n, ms, checkpointMs: await checkpoint(store) };
}

// What a run leaves to checkpoint: DuckDB checkpoints at a commit only once the WAL passes its
// threshold (16 MB), so a run may commit without one and the next write pays for it. Timed apart
// so each run is charged its own.
async function checkpoint(store: Store): Promise<number> {
  return store.withReadConnection(async (conn) => {
    const started = performance.now();
    await conn.run('CHECKPOINT');
    return performance.now() - started;
  });
}

async function repeat(times: number, fn: () => Promise<number>): Promise<number[]> {
  const results: number[] = [];
  for (let i = 0; i < times; i++) results.push(await fn());
  return results;
}

// Peak RSS of this process and peak memory DuckDB reports (duckdb_memory(), its buffer manager's
// view) while a run is in flight, sampled every 200 ms.
function sampleMemory(store: Store): { stop(): Promise<{ rss: number; duckdb: number }> } {
  let rss = process.memoryUsage.rss();
  let duckdb = 0;
  let pending: Promise<void> = Promise.resolve();
  // Kept, not thrown from the timer: if the run fails, the store closes under a pending sample,
  // and the run's own error is the one to report.
  let failure: unknown;
  const sample = () => {
    rss = Math.max(rss, process.memoryUsage.rss());
    pending = store
      .read('SELECT sum(memory_usage_bytes)::BIGINT AS bytes FROM duckdb_memory()')
      .then(([row]) => void (duckdb = Math.max(duckdb, Number(row!.bytes))))
      .catch((err: unknown) => void (failure ??= err));
  };
  const timer = setInterval(sample, 200).unref();
  return {
    async stop() {
      clearInterval(timer);
      sample();
      await pending;
      if (failure) throw failure;
      return { rss: mib(rss), duckdb: mib(duckdb) };
    },
  };
}

function parseMemoryLimit(text: string): number {
  const match = /^([\d.]+)\s*(bytes|KiB|MiB|GiB|TiB)$/.exec(text.trim());
  if (!match) return -1;
  const power = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB'].indexOf(match[2]!);
  return mib(Number(match[1]) * 1024 ** power);
}
