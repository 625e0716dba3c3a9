// The `jobs` commands as admin operations: run a job, look at runs and schedules, change a
// schedule. Inside the server they go to its runner (in-process or BullMQ); without a server the
// CLI runs the job itself and reports progress as it goes.
import { z } from 'zod';
import type { Store } from '../../pipeline/store/store.ts';
import type { Row } from '../../pipeline/store/rows.ts';
import { isJobName, jobInputs, jobKey, jobNames, type JobData, type JobName } from '../../jobs/definitions.ts';
import type { JobRunner, QueuedRun } from '../../jobs/runner.ts';
import { executeJob } from '../../jobs/runner.ts';
import type { JobDeps } from '../../jobs/handlers.ts';
import { maxListedRuns, newRunId, type JobProgress, type RunLog } from '../../jobs/run-log.ts';
import { listSchedules, saveSchedule } from '../../jobs/schedules.ts';
import { QueueUnavailableError } from '../../jobs/bullmq/connection.ts';

export interface JobsContext extends JobDeps {
  runs: RunLog;
  /** The server's runner; absent when the CLI runs without a server. */
  jobs?: JobRunner;
  onProgress?: (progress: JobProgress) => void;
}

export class JobOperationError extends Error {
  override name = 'JobOperationError';
}

const jobName = z.string().refine(isJobName, { message: `job must be one of ${jobNames.join(', ')}` }).transform((n) => n as JobName);

function validData(name: JobName, data: unknown) {
  const parsed = jobInputs[name].safeParse(data ?? {});
  if (!parsed.success) throw new JobOperationError(`${name}: ${parsed.error.issues[0]!.path.join('.') || 'input'}: ${parsed.error.issues[0]!.message}`);
  return parsed.data as Record<string, string | number | undefined>;
}

export const jobOperations = {
  'jobs.run': {
    input: z.object({ name: jobName, data: z.record(z.string(), z.unknown()).default({}), wait: z.boolean().default(true) }),
    async run(ctx: JobsContext, args: { name: JobName; data: Record<string, unknown>; wait: boolean }) {
      const data = validData(args.name, args.data);
      if (!ctx.jobs) {
        // No server: the job runs here to the end (whether or not asked to wait), under the id
        // `jobs status` knows it by, as a queued run's answer has.
        const runId = newRunId();
        const result = await executeJob({ ...ctx, runs: progressRunLog(ctx) }, args.name, data, 'manual', runId);
        return { run_id: runId, state: 'completed', deduplicated: false, result };
      }
      const started = await ctx.jobs.run(args.name, data, 'manual');
      if (!args.wait) return { run_id: started.runId, state: 'queued', deduplicated: started.deduplicated };
      const result = await started.done;
      return { run_id: started.runId, state: 'completed', deduplicated: started.deduplicated, result };
    },
  },
  'jobs.status': {
    input: z.object({ runId: z.string().optional(), limit: z.number().int().min(1).max(maxListedRuns).default(20) }),
    async run(ctx: JobsContext, args: { runId?: string; limit: number }) {
      const withProgress = (runs: Record<string, unknown>[]) =>
        runs.map((r) => ({ ...r, progress: r.state === 'running' ? (ctx.runs.liveProgress(String(r.run_id)) ?? null) : null }));
      // A recorded run asked for by id (what a CLI following it polls) needs no look at the queue.
      if (args.runId) {
        const recorded = await latestRuns(ctx.store, args.runId, args.limit);
        if (recorded.length > 0) return withProgress(recorded);
      }
      // Runs not started have no row yet: the runner lists them, newest first, above the others.
      // Listed before the rows are read, so a run starting meanwhile is in one list or both.
      const queued = await queuedRuns(ctx);
      const runs = await latestRuns(ctx.store, args.runId, args.limit);
      const known = new Set(runs.map((r) => String(r.run_id)));
      const rows = [...queued.filter((q) => !known.has(q.runId) && (!args.runId || q.runId === args.runId)).reverse().map(queuedRow), ...withProgress(runs)].slice(0, args.limit);
      if (args.runId && rows.length === 0) throw new JobOperationError(`no job run ${args.runId}`);
      return rows;
    },
  },
  'jobs.list': {
    input: z.object({}),
    async run(ctx: JobsContext) {
      // The newest run of each job and input text, oldest first, then by jobKey: one input written
      // in two key orders (a request's --data and the schedule's) is one, and the newer run wins.
      const rows = await ctx.store.read(
        `SELECT job_name, job_data::VARCHAR AS job_data, state, strftime(coalesce(finished_at, started_at), '%Y-%m-%dT%H:%M:%SZ') AS at
           FROM job_run_states QUALIFY row_number() OVER (PARTITION BY job_name, job_data::VARCHAR ORDER BY started_at DESC) = 1
          ORDER BY started_at`,
      );
      const last = new Map(rows.map((r) => [jobKey(r.job_name as JobName, JSON.parse(String(r.job_data)) as JobData), r]));
      return (await listSchedules(ctx.store, ctx.config)).map((s) => {
        const run = last.get(jobKey(s.jobName, s.jobData));
        return { schedule: s.scheduleId, job: s.jobName, data: s.jobData, every_seconds: s.everySeconds, runner: ctx.jobs?.kind ?? 'none (no server)', last_state: run?.state ?? null, last_at: run?.at ?? null };
      });
    },
  },
  'jobs.schedule': {
    input: z.object({
      scheduleId: z.string().regex(/^[A-Za-z0-9._-]+$/, 'schedule ids use letters, digits, . _ -'),
      name: jobName.optional(),
      data: z.record(z.string(), z.unknown()).default({}),
      everySeconds: z.number().int().min(1).nullable(),
    }),
    async run(ctx: JobsContext, args: { scheduleId: string; name?: JobName; data: Record<string, unknown>; everySeconds: number | null }) {
      const current = (await listSchedules(ctx.store, ctx.config)).find((s) => s.scheduleId === args.scheduleId);
      const name = args.name ?? current?.jobName;
      // Removing: nothing to create, so no hint about --job.
      if (args.everySeconds === null && !current) throw new JobOperationError(`schedule ${args.scheduleId} does not exist`);
      if (!name) throw new JobOperationError(`schedule ${args.scheduleId} does not exist: give --job to create it`);
      const data = args.name || Object.keys(args.data).length > 0 ? validData(name, args.data) : current!.jobData;
      await saveSchedule(ctx.store, { scheduleId: args.scheduleId, jobName: name, jobData: data, everySeconds: args.everySeconds });
      await ctx.jobs?.reloadSchedules();
      return { schedule: args.scheduleId, job: name, data, every_seconds: args.everySeconds, removed: args.everySeconds === null };
    },
  },
} as const;

// Without a server, progress goes straight to the CLI's reporter.
function progressRunLog(ctx: JobsContext): RunLog {
  return { ...ctx.runs, progress: (id, p) => (ctx.runs.progress(id, p), ctx.onProgress?.(p)) };
}

// With Redis down the queue cannot be listed; the recorded runs are still worth showing (a CLI
// following a run polls this while Redis comes back).
async function queuedRuns(ctx: JobsContext): Promise<QueuedRun[]> {
  try {
    return (await ctx.jobs?.queued()) ?? [];
  } catch (err) {
    if (err instanceof QueueUnavailableError) return [];
    throw err;
  }
}

const queuedRow = (q: QueuedRun) => ({
  run_id: q.runId,
  job_name: q.name,
  job_data: q.data,
  state: 'queued',
  trigger: q.trigger,
  started_at: null,
  finished_at: null,
  result: null,
  error: null,
  progress: null,
});

// A run's input and result are JSON objects in the answer, as `jobs list` gives a schedule's
// input, not JSON text inside a string.
async function latestRuns(store: Store, runId: string | undefined, limit: number) {
  const rows = await store.read(
    `SELECT run_id, job_name, job_data::VARCHAR AS job_data, state, trigger,
            strftime(started_at, '%Y-%m-%dT%H:%M:%SZ') AS started_at, strftime(finished_at, '%Y-%m-%dT%H:%M:%SZ') AS finished_at,
            result::VARCHAR AS result, error
       FROM job_run_states WHERE $1::VARCHAR IS NULL OR run_id = $1
      ORDER BY started_at DESC LIMIT ${limit}`,
    [runId ?? null],
  );
  return rows.map((r): Row => ({ ...r, job_data: JSON.parse(String(r.job_data)), result: r.result === null ? null : JSON.parse(String(r.result)) }));
}
