// The runner used without REDIS_URL: each schedule is a timer in the owner, jobs run with bounded
// concurrency, and a job already queued or running is not started twice by the same trigger: a
// second request is a no-op, as is a tick while the schedule's last run has not ended. A request is
// not folded into a scheduled run (which may have read the chain before what the request is for),
// as with BullMQ. A job takes its work locks before a slot, so a job waiting for work another is
// doing holds no slot (work-locks.ts).
import pLimit from 'p-limit';
import { jobKey, type JobData, type JobName } from './definitions.ts';
import type { JobDeps } from './handlers.ts';
import { newRunId, type RunLog, type Trigger } from './run-log.ts';
import { executeJob, type JobRunner, type QueuedRun, type StartedRun } from './runner.ts';
import { lastScheduledStarts, listSchedules } from './schedules.ts';
import { workKeys, workLocks } from './work-locks.ts';

const maxTimerMs = 2 ** 31 - 1;

export function startInProcessRunner(deps: JobDeps & { runs: RunLog; concurrency?: number }): JobRunner {
  const limit = pLimit(deps.concurrency ?? 2);
  // By trigger and job key: the run's id, its end, and what it was asked for until it starts.
  const running = new Map<string, { runId: string; done: Promise<unknown>; queued: QueuedRun | null }>();
  const timers = new Set<NodeJS.Timeout>();
  // When each schedule that never ran was first set (by job key): a reload keeps its phase too.
  let firstSet = new Map<string, number>();
  let stopped = false;

  const run = async (name: JobName, data: JobData, trigger: Trigger = 'manual'): Promise<StartedRun> => {
    if (stopped) throw new Error('the job runner is stopping');
    const key = `${trigger}:${jobKey(name, data)}`;
    const existing = running.get(key);
    if (existing) return { runId: existing.runId, deduplicated: true, done: existing.done };
    const runId = newRunId();
    const entry = { runId, done: Promise.resolve<unknown>(null), queued: { runId, name, data, trigger } as QueuedRun | null };
    // Queued until its run is recorded, so `jobs status` always finds it in one or the other.
    const runs: RunLog = { ...deps.runs, start: (...args) => deps.runs.start(...args).finally(() => (entry.queued = null)) };
    entry.done = workLocks(deps.store)
      .hold(workKeys(name, data, deps.config), () => limit(() => executeJob({ ...deps, runs }, name, data, trigger, runId)))
      .finally(() => running.delete(key));
    // A caller that does not wait must not turn a failed job into an unhandled rejection (the
    // failure is recorded in job_runs).
    entry.done.catch(() => undefined);
    running.set(key, entry);
    return { runId, deduplicated: false, done: entry.done };
  };

  // Reloads run one after the other: two at once would each clear, then each add, every timer.
  let reloading: Promise<void> = Promise.resolve();
  const reloadSchedules = () => (reloading = reloading.catch(() => undefined).then(reload));
  const reload = async () => {
    const schedules = await listSchedules(deps.store, deps.config);
    const lastStarts = await lastScheduledStarts(deps.store);
    timers.forEach(clearTimeout);
    timers.clear();
    if (stopped) return;
    const now = Date.now();
    const wasSet = firstSet;
    firstSet = new Map();
    for (const schedule of schedules) {
      const every = schedule.everySeconds * 1000;
      const tick = () => {
        const failed = (err: Error) => deps.log.error('scheduled job failed', { schedule: schedule.scheduleId, error: err.message });
        void run(schedule.jobName, schedule.jobData, 'schedule').then((s) => s.done.catch(failed), failed);
      };
      // Due one interval after the schedule's last run (at once if that is past), so a restart or
      // a change of another schedule keeps its phase: a daily run is not put off by a day each
      // time. One that never ran is due one interval after it was first set (in this process).
      const key = jobKey(schedule.jobName, schedule.jobData);
      firstSet.set(key, wasSet.get(key) ?? now);
      const since = lastStarts.get(key) ?? firstSet.get(key)!;
      const repeat = () => (tick(), after(every, repeat));
      after(Math.max(0, since + every - now), repeat);
    }
  };

  // Node waits at most 2^31-1 ms (24.8 days) and fires a longer timer after 1 ms: a monthly
  // schedule would run at once and then without pause. A longer wait is made of steps.
  const after = (ms: number, fn: () => void) => {
    const step = Math.min(ms, maxTimerMs);
    const timer = setTimeout(() => (timers.delete(timer), ms > step ? after(ms - step, fn) : fn()), step);
    timer.unref();
    timers.add(timer);
  };

  return {
    kind: 'in-process',
    run,
    // Map order is the order the runs were asked for.
    queued: async () => [...running.values()].flatMap((r) => (r.queued ? [r.queued] : [])),
    reloadSchedules,
    async stop() {
      stopped = true;
      timers.forEach(clearTimeout);
      await Promise.allSettled([...running.values()].map((r) => r.done));
    },
  };
}
