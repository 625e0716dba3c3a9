// Scoring over the synthetic data set (bench/score-data.ts: 1M addresses, 10M x402 payments, 20k
// agents by default), against a plain `GROUP BY from_address` over the same transfers in the same
// run: the first run (which also builds the payments table and its aggregates from the view),
// then four times one more hour of blocks touching 1% of the addresses and an incremental run (the
// first after the rebuild is reported apart, the ratio is of the best of the other three), then
// two full runs (`score --full`: every address rescored from the kept aggregates; the best
// counts), two more full runs each over its own 1% increment (the full run's way of taking the
// same new payments an incremental run takes), and peak memory; with the steps of each kind's best run, and the checkpoint each run
// leaves behind, timed apart. The targets:
// full run <= 3x the baseline, incremental <= 0.1x the full run. A second baseline, the floor,
// times only the writes an incremental run cannot avoid (replacementFloor below); two incremental
// runs over increments touching 50 addresses time what a run costs whatever its size.
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
import { runScoring, type ScoringRun } from '../pipeline/score/run.ts';
import { applyScoreIncrement, scoreDataSize } from './score-data.ts';

const generator = fileURLToPath(new URL('./score-data.ts', import.meta.url));
const smallIncrement = 50;
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

      // Each run is followed by a checkpoint, timed apart: not charged to the next run.
      const first = await timedRun(store, (onStep) => runScoring(store, { onStep }));

      // The first incremental run after the rebuild pays for things a run every minute does not
      // (about twice the next one): timed and reported, but not in the ratio.
      await applyScoreIncrement(store, size);
      const afterRebuild = await timedRun(store, (onStep) => runIncremental(store, onStep));

      // Best of three incremental runs (each with its own increment) and of two full runs, as the
      // baseline is best of three: on this shared machine a run now and then takes twice as long,
      // all its steps alike. Each run's time is reported; the steps are those of the best.
      const incrementals: Timed<ScoringRun>[] = [];
      for (let i = 0; i < 3; i++) {
        await applyScoreIncrement(store, size);
        incrementals.push(await timedRun(store, (onStep) => runIncremental(store, onStep)));
      }
      const incremental = best(incrementals);
      // The last run's rows are all still its own (an address of an earlier increment can be touched again).
      const floor = await replacementFloor(store, incrementals.at(-1)!.result.runId);

      // What an incremental run costs whatever its size: two runs over increments touching 50
      // addresses each (the best counts). The 1% run's time less this is what its 1% costs.
      const smalls: Timed<ScoringRun>[] = [];
      for (let i = 0; i < 2; i++) {
        await applyScoreIncrement(store, size, { touchedAddresses: smallIncrement });
        smalls.push(await timedRun(store, (onStep) => runIncremental(store, onStep)));
      }
      const small = best(smalls);

      const fulls: Timed<ScoringRun>[] = [];
      for (let i = 0; i < 2; i++) fulls.push(await timedRun(store, (onStep) => runScoring(store, { full: true, onStep })));
      const full = best(fulls);
      // Full runs over the same kind of increment as the incremental runs: the two ways of bringing
      // the scores up to date after the same new payments (the full runs above have none to take).
      const fullsOverIncrement: Timed<ScoringRun>[] = [];
      for (let i = 0; i < 2; i++) {
        await applyScoreIncrement(store, size);
        fullsOverIncrement.push(await timedRun(store, (onStep) => runScoring(store, { full: true, onStep })));
      }
      const fullOverIncrement = best(fullsOverIncrement);
      const incrementalMs = incremental.ms;
      const fullMs = full.ms;

      const [limit] = await store.read(`SELECT current_setting('memory_limit') AS limit`);
      return {
        addresses: size.addresses,
        transfers: size.transfers,
        agents: size.agents,
        generate_s: seconds(generated.generate_ms),
        checkpoint_s: seconds(generated.checkpoint_ms),
        baseline_group_by_s: seconds(baselineMs),
        first_run_s: seconds(first.ms),
        full_run_s: seconds(fullMs),
        ...Object.fromEntries(fulls.map((run, i) => [`full_run_${i + 1}_s`, seconds(run.ms)])),
        full_address_count: full.result.addressCount,
        incremental_after_rebuild_s: seconds(afterRebuild.ms),
        incremental_after_rebuild_rescored: afterRebuild.result.rescoredCount,
        incremental_run_s: seconds(incrementalMs),
        ...Object.fromEntries(incrementals.map((run, i) => [`incremental_run_${i + 1}_s`, seconds(run.ms)])),
        incremental_rescored: incremental.result.rescoredCount,
        ratio_full_vs_baseline: Number((fullMs / baselineMs).toFixed(2)),
        ratio_incremental_vs_full: Number((incrementalMs / fullMs).toFixed(3)),
        incremental_checkpoint_s: seconds(incremental.checkpointMs),
        full_checkpoint_s: seconds(full.checkpointMs),
        full_run_over_increment_s: seconds(fullOverIncrement.ms),
        ...Object.fromEntries(fullsOverIncrement.map((run, i) => [`full_run_over_increment_${i + 1}_s`, seconds(run.ms)])),
        ratio_incremental_vs_full_over_increment: Number((incrementalMs / fullOverIncrement.ms).toFixed(3)),
        ratio_incremental_vs_full_with_checkpoints: Number(((incrementalMs + incremental.checkpointMs) / (fullMs + full.checkpointMs)).toFixed(3)),
        floor_replaced_addresses: floor.addresses,
        floor_s: seconds(floor.ms),
        floor_checkpoint_s: seconds(floor.checkpointMs),
        ratio_floor_vs_full: Number((floor.ms / fullMs).toFixed(3)),
        ratio_incremental_vs_floor: Number((incrementalMs / floor.ms).toFixed(2)),
        small_incremental_touched_addresses: smallIncrement,
        small_incremental_run_s: seconds(small.ms),
        ...Object.fromEntries(smalls.map((run, i) => [`small_incremental_run_${i + 1}_s`, seconds(run.ms)])),
        small_incremental_rescored: small.result.rescoredCount,
        ratio_small_incremental_vs_full: Number((small.ms / fullMs).toFixed(3)),
        first_run_peak_rss_mib: first.memory.rss,
        full_run_peak_rss_mib: Math.max(...fulls.map((run) => run.memory.rss)),
        full_run_peak_duckdb_mib: Math.max(...fulls.map((run) => run.memory.duckdb)),
        incremental_run_peak_rss_mib: Math.max(...incrementals.map((run) => run.memory.rss)),
        incremental_run_peak_duckdb_mib: Math.max(...incrementals.map((run) => run.memory.duckdb)),
        process_peak_rss_mib: Math.round(process.resourceUsage().maxRSS / 1024),
        duckdb_memory_limit_mib: parseMemoryLimit(String(limit!.limit)),
        ...stepsOf('first', first),
        ...stepsOf('after_rebuild', afterRebuild),
        ...stepsOf('incremental', incremental),
        ...stepsOf('small_incremental', small),
        ...stepsOf('full', full),
      };
    } finally {
      await store.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

interface Timed<T> {
  result: T;
  ms: number;
  /** What the run left to checkpoint, timed apart (checkpoint below). */
  checkpointMs: number;
  memory: { rss: number; duckdb: number };
  steps: Record<string, number>;
}

/** Times one run with its peak memory and steps, then its checkpoint. */
async function timedRun<T>(store: Store, run: (onStep: (step: string, ms: number) => void) => Promise<T>): Promise<Timed<T>> {
  const steps: Record<string, number> = {};
  const memory = sampleMemory(store);
  const started = performance.now();
  const result = await run((step, ms) => void (steps[step] = ms));
  const ms = performance.now() - started;
  return { result, ms, memory: await memory.stop(), checkpointMs: await checkpoint(store), steps };
}

const best = <T>(runs: Timed<T>[]) => runs.reduce((a, b) => (b.ms < a.ms ? b : a));
const stepsOf = (kind: string, run: Timed<unknown>) =>
  Object.fromEntries(Object.entries(run.steps).map(([step, ms]) => [`${kind}_step_${step}_s`, seconds(ms)]));

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
// rescored in the per-address tables (chain_scores, address_scores) and committing,
// with the new rows already made. Each DELETE finds its rows by scanning the table's address
// column, as the run's own statements do: DuckDB reaches rows through a join only by scanning.
// The rows put back are the same, so the state the full run starts from is unchanged.
const floorTables = ['chain_scores', 'address_scores'];
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
