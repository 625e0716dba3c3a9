// What both runners offer the owner: run a job now (a duplicate of a queued or running job is a
// no-op that returns the first), pick up schedule changes, and stop gracefully.
import type { JobData, JobName } from './definitions.ts';
import { JobInputError, runHandler, type JobDeps } from './handlers.ts';
import type { RunLog, Trigger } from './run-log.ts';

export interface StartedRun {
  runId: string;
  /** True when an identical job was already queued or running; runId is that job's. */
  deduplicated: boolean;
  /** Settles when the job finishes. */
  done: Promise<unknown>;
}

/** A run asked for that has not started: waiting for a slot, or for work another job is doing. */
export interface QueuedRun {
  runId: string;
  name: string;
  data: JobData;
  trigger: Trigger;
}

export interface JobRunner {
  readonly kind: 'in-process' | 'bullmq';
  run(name: JobName, data: JobData, trigger?: Trigger): Promise<StartedRun>;
  /** The runs queued and not started yet, oldest first (scheduled ticks not yet due are not runs). */
  queued(): Promise<QueuedRun[]>;
  reloadSchedules(): Promise<void>;
  stop(): Promise<void>;
}

/** Runs a job's handler with its run recorded in job_runs and its progress kept live. */
export async function executeJob(
  deps: JobDeps & { runs: RunLog },
  name: JobName,
  data: JobData,
  trigger: Trigger,
  runId?: string,
  /** False when a failure will be retried: it is then recorded as 'retrying'. */
  finalAttempt = true,
): Promise<unknown> {
  const id = await deps.runs.start(name, data, trigger, runId);
  try {
    const result = await runHandler(deps, name, data, (p) => deps.runs.progress(id, p));
    await deps.runs.finish(id, { result });
    return result;
  } catch (err) {
    await deps.runs.finish(id, { error: (err as Error).message, retrying: !finalAttempt && !(err instanceof JobInputError) });
    throw err;
  }
}
