// Job runs as the owner records them: a row in job_runs when an attempt starts and another when
// it ends (completed, failed, or retrying when BullMQ will try again); the row with the latest
// time is the run's state. Live progress is kept in memory for `jobs status` while it runs.
import type { Store } from '../pipeline/store/store.ts';
import { newId } from '../pipeline/secrets.ts';
import type { JobData, JobName } from './definitions.ts';

export type Trigger = 'schedule' | 'manual';

/** The id of a run started in this process (a queued BullMQ run's id is its job id). */
export const newRunId = (): string => newId('job_');

/** Most recent runs `jobs status` lists at once (its --limit). */
export const maxListedRuns = 500;

export interface JobProgress {
  done: number;
  total: number;
  unit: string;
  ratePerSecond?: number;
  etaSeconds?: number | null;
  detail?: string;
}

export interface RunLog {
  start(name: JobName, data: JobData, trigger: Trigger, runId?: string): Promise<string>;
  progress(runId: string, progress: JobProgress): void;
  finish(runId: string, outcome: { result: unknown } | { error: string; retrying?: boolean }): Promise<void>;
  liveProgress(runId: string): JobProgress | undefined;
}

/**
 * Runs still 'running' when the owner starts were cut off by a crash or kill: record them as
 * failed, so they do not show as running for ever. (BullMQ retries a job whose worker died; its
 * next attempt records a new 'running' row, which is newer.)
 */
export async function closeInterruptedRuns(store: Store): Promise<number> {
  return store.write(async (tx) => {
    const rows = await tx.all(
      `INSERT INTO job_runs
       SELECT run_id, job_name, job_data, 'failed', trigger, started_at, utc_now(), NULL, 'interrupted: the owner stopped while it ran'
         FROM job_run_states WHERE state = 'running'
       RETURNING run_id`,
    );
    return rows.length;
  });
}

export function createRunLog(store: Store): RunLog {
  const live = new Map<string, { name: JobName; data: JobData; trigger: Trigger; progress?: JobProgress }>();
  return {
    async start(name, data, trigger, runId = newRunId()) {
      live.set(runId, { name, data, trigger });
      await store.write((tx) =>
        tx.run(`INSERT INTO job_runs VALUES ($1, $2, $3, 'running', $4, utc_now(), NULL, NULL, NULL)`, [runId, name, JSON.stringify(data), trigger]),
      );
      return runId;
    },
    progress(runId, progress) {
      const run = live.get(runId);
      if (run) run.progress = progress;
    },
    async finish(runId, outcome) {
      const run = live.get(runId);
      live.delete(runId);
      if (!run) return;
      const failed = 'error' in outcome;
      const state = !failed ? 'completed' : outcome.retrying ? 'retrying' : 'failed';
      // Copies the start time of this attempt (the newest 'running' row of the run).
      await store.write((tx) =>
        tx.run(
          `INSERT INTO job_runs
           SELECT $1, $2, $3, $4, $5, max(started_at), utc_now(), $6, $7 FROM job_runs WHERE run_id = $1 AND state = 'running'`,
          [runId, run.name, JSON.stringify(run.data), state, run.trigger, failed ? null : JSON.stringify(outcome.result ?? null, bigintSafe), failed ? outcome.error : null],
        ),
      );
    },
    liveProgress: (runId) => live.get(runId)?.progress,
  };
}

function bigintSafe(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? value.toString() : value;
}
