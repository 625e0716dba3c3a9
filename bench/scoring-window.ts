// A bench phase measured while a full scoring run is in flight, and what the store's writers made
// a write wait meanwhile: an empty unit queued on a writer is acknowledged once every unit queued
// before it has committed, so the main writer's probe waits for the run's transaction.
import type { RunningServer } from '../api/server.ts';
import type { WriteUnit } from '../pipeline/store/group-commit.ts';

type Writer = <T>(unit: WriteUnit<T>) => Promise<T>;
const emptyUnit: WriteUnit<unknown> = (tx) => tx.all('SELECT 1');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const round = (x: number, digits = 0) => Number(x.toFixed(digits));

/** Milliseconds from queueing an empty unit on `write` to its acknowledgement. */
export async function probe(write: Writer): Promise<number> {
  const started = performance.now();
  await write(emptyUnit);
  return performance.now() - started;
}

/** The figures every bench reports of its window under scoring. */
export interface ScoringFigures {
  scoring_in_flight: boolean;
  scoring_job_s: number;
  scoring_left_after_window_s: number;
  window_ms: number;
  main_writer_ms_idle: number;
  main_writer_ms_during_run: number;
}

export interface ScoringWindow<T> {
  result: T;
  /** performance.now() when the window closed. */
  windowEnded: number;
  /** Waits for the run to end: the figures. */
  finish(): Promise<ScoringFigures>;
}

/**
 * Starts `score --full` on the server's job runner, waits until its transaction is under way, runs
 * `window`, and fails unless the run was in flight the whole time (it had not ended, and a probe
 * queued on the main writer as the window opened was still waiting). `raise` names the settings
 * that make the run longer, for that error.
 */
export async function whileScoring<T>(server: RunningServer, raise: string, window: () => Promise<T>): Promise<ScoringWindow<T>> {
  const mainIdle = await probe(server.store.write);
  const jobStarted = performance.now();
  const job = await server.jobs.run('score', { full: true });
  let jobEnded = 0;
  const jobDone = job.done.then(
    () => void (jobEnded = performance.now()),
    (err: unknown) => {
      jobEnded = performance.now();
      throw err;
    },
  );
  jobDone.catch(() => undefined);
  for (;;) {
    const [row] = await server.store.read(`SELECT count(*)::INTEGER AS n FROM job_runs WHERE run_id = $1 AND state = 'running'`, [job.runId]);
    if (row!.n || jobEnded) break;
    await sleep(20);
  }
  // From the run row to the run's transaction: the job's handler queues it at once.
  await sleep(300);
  if (jobEnded) throw new Error(`the scoring job ended before the window opened: raise ${raise}`);

  const windowStarted = performance.now();
  let acked = 0;
  const mainProbe = probe(server.store.write).then((ms) => ((acked = performance.now()), ms));
  mainProbe.catch(() => undefined);
  const result = await window();
  const windowEnded = performance.now();
  if (jobEnded || acked) {
    throw new Error(`the scoring run was not in flight for the whole window (job ${jobEnded ? 'ended' : 'running'}, main-writer probe ${acked ? 'acknowledged' : 'waiting'}): raise ${raise}`);
  }
  return {
    result,
    windowEnded,
    async finish() {
      await jobDone;
      const mainDuring = await mainProbe;
      return {
        scoring_in_flight: true,
        scoring_job_s: round((jobEnded - jobStarted) / 1000, 1),
        scoring_left_after_window_s: round((jobEnded - windowEnded) / 1000, 1),
        window_ms: round(windowEnded - windowStarted),
        main_writer_ms_idle: round(mainIdle, 1),
        main_writer_ms_during_run: round(mainDuring),
      };
    },
  };
}
