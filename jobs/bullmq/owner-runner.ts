// The runner used with REDIS_URL, inside the owner: jobs go through the owner queue (so a
// duplicate is a no-op and failures retry with backoff), the owner's worker runs their handlers
// against the database, and block ranges are read by `reputation worker` processes through the
// io queue. Schedules are mirrored into BullMQ job schedulers, and mirrored again every minute so
// a Redis that lost its data gets them back.
//
// A job whose work another job is doing (work-locks.ts) gives its slot back and looks again a
// second later, as a delayed job, keeping its turn. A scheduler's job cannot wait so itself:
// schedulers take no deduplication id, and each tick would add one more waiting job. It hands the
// wait to a job deduplicated on its job and input, so one waits however many ticks find the work
// held.
import { DelayedError, Job, QueueEvents, UnrecoverableError, Worker } from 'bullmq';
import { isJobName, jobKey, type JobData, type JobName } from '../definitions.ts';
import type { JobDeps } from '../handlers.ts';
import { JobInputError } from '../handlers.ts';
import type { RunLog, Trigger } from '../run-log.ts';
import { executeJob, type JobRunner } from '../runner.ts';
import { listSchedules } from '../schedules.ts';
import type { Redis } from 'ioredis';
import { closeWithinGrace, produce, producerConnection, queueNames, workerConnection } from './connection.ts';
import { remoteChunkFetcher } from './remote-fetcher.ts';
import { createProducers } from './producers.ts';
import { newId } from '../../pipeline/secrets.ts';
import { startIoWorker } from './io-worker.ts';
import { workKeys, workLocks } from '../work-locks.ts';

interface OwnerJobData {
  data: JobData;
  trigger: Trigger;
}

const resyncMs = 60_000;
const connectWaitMs = 3_000;
const busyRecheckMs = 1_000;

const jobOptions = {
  attempts: 3,
  backoff: { type: 'exponential', delay: 2_000 },
  removeOnComplete: { age: 3600 },
  removeOnFail: { age: 86_400 },
};

export async function startBullmqRunner(
  deps: JobDeps & { runs: RunLog; redisUrl: string; ownerConcurrency?: number; ioWorkersInOwner?: number },
): Promise<JobRunner> {
  // BullMQ leaves connections it was given open: these are closed in stop().
  const connections = [producerConnection(deps.redisUrl), workerConnection(deps.redisUrl), workerConnection(deps.redisUrl)];
  const [producer, ownerEventsConnection, workerConn] = connections as [Redis, Redis, Redis];
  const prefix = deps.config.queuePrefix;
  const ownerEvents = new QueueEvents(queueNames.owner, { connection: ownerEventsConnection, prefix });
  // Outages surface where a call fails; the 'error' events would only repeat them.
  ownerEvents.on('error', () => undefined);
  // Mirror schedules when Redis first answers, whenever it comes back, and every minute. Redis
  // being down at start is not fatal: the API serves, and enqueueing answers "unavailable".
  const syncSchedules = () => void reloadSchedules().catch((err: Error) => deps.log.warn('cannot sync job schedulers', { error: err.message }));
  const producers = createProducers(producer, prefix, () => {
    syncSchedules();
    producer.on('ready', syncSchedules);
  });
  const jobDeps = { ...deps, fetchChunk: remoteChunkFetcher(producers.io) };
  const locks = workLocks(deps.store);

  const worker = new Worker<OwnerJobData>(
    queueNames.owner,
    async (job: Job<OwnerJobData>, token?: string) => {
      const name = job.name;
      if (!isJobName(name)) throw new UnrecoverableError(`unknown job ${name}`);
      const keys = workKeys(name, job.data.data, deps.config);
      const scheduler = job.repeatJobKey !== undefined;
      if (!locks.mayStart(String(job.id), keys, !scheduler)) {
        if (!scheduler) {
          await job.moveToDelayed(Date.now() + busyRecheckMs, token);
          throw new DelayedError();
        }
        const waiting = await add(name, job.data, busyRecheckMs);
        return { waitingAs: waiting.job.id };
      }
      return locks.hold(keys, async () => {
        try {
          // Attempts that BullMQ will retry are recorded as 'retrying', not 'failed'.
          const final = job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
          return await executeJob(jobDeps, name, job.data.data, job.data.trigger, job.id, final);
        } catch (err) {
          // Bad input never gets better with retries.
          if (err instanceof JobInputError) throw new UnrecoverableError(err.message);
          throw err;
        }
      });
    },
    { connection: workerConn, prefix, concurrency: deps.ownerConcurrency ?? 2 },
  );
  worker.on('error', (err) => deps.log.warn('owner worker connection error', { error: err.message }));
  // The owner can read block ranges itself too, so it works with no separate worker running.
  const ioWorker = (deps.ioWorkersInOwner ?? 2) > 0 ? startIoWorker(deps.config, deps.log.child('io'), { concurrency: deps.ioWorkersInOwner ?? 2 }) : null;

  async function reloadSchedules() {
    const ownerQueue = producers.owner();
    const schedules = await listSchedules(deps.store, deps.config);
    const wanted = new Set(schedules.map((s) => s.scheduleId));
    for (const s of schedules) {
      await ownerQueue.upsertJobScheduler(s.scheduleId, { every: s.everySeconds * 1000 }, {
        name: s.jobName,
        data: { data: s.jobData, trigger: 'schedule' },
        opts: jobOptions,
      });
    }
    for (const existing of await ownerQueue.getJobSchedulers()) {
      if (existing.key && !wanted.has(existing.key)) await ownerQueue.removeJobScheduler(existing.key);
    }
    // A schedule's waiting job (the worker above) is dropped with the schedule, unless another
    // schedule asks for the same job and input.
    const scheduledWork = new Set(schedules.map((s) => jobKey(s.jobName, s.jobData)));
    for (const job of await ownerQueue.getJobs(['delayed', 'waiting', 'prioritized'])) {
      const { data, trigger } = (job.data ?? {}) as Partial<OwnerJobData>;
      if (trigger !== 'schedule' || job.repeatJobKey !== undefined || !isJobName(job.name) || scheduledWork.has(jobKey(job.name, data ?? {}))) continue;
      // Taken by the worker at this moment, it runs once if its work is free, else it is dropped
      // at the next mirroring (within a minute).
      await job.remove().catch(() => undefined);
    }
  }
  // The id starts with the business key. Deduplication on the key and trigger makes a second job a
  // no-op while the first is queued or running: BullMQ then answers with the first job's id. A
  // request is never folded into a scheduled run, which may have read the chain before what the
  // request is for.
  async function add(name: JobName, data: OwnerJobData, delay?: number) {
    const key = jobKey(name, data.data);
    const jobId = `${key}-${newId('')}`;
    const deduplication = { id: data.trigger === 'manual' ? key : `${data.trigger}-${key}` };
    const job = await producers.owner().add(name, data, { ...jobOptions, jobId, deduplication, delay });
    return { job, deduplicated: job.id !== jobId };
  }
  const resync = setInterval(syncSchedules, resyncMs);
  resync.unref();
  // Work enqueued right after start should not fail just because Redis had not answered yet.
  await producers.ready(connectWaitMs);

  return {
    kind: 'bullmq',
    async run(name: JobName, data: JobData, trigger: Trigger = 'manual') {
      const { job, deduplicated } = await produce(`enqueue ${name}`, () => add(name, { data, trigger }));
      const first = deduplicated ? await Job.fromId(producers.owner(), String(job.id)) : job;
      const done = first ? first.waitUntilFinished(ownerEvents) : Promise.resolve(null);
      // A caller that does not wait must not turn a failed job into an unhandled rejection.
      done.catch(() => undefined);
      return { runId: String(job.id), deduplicated, done };
    },
    async queued() {
      const jobs = await produce('list queued jobs', async () => {
        const owner = producers.owner();
        // Of the delayed jobs, those waiting for work another job is doing: a scheduler's
        // delayed job is its next tick, not a run yet, and a job that has made an attempt
        // (waiting out a backoff, or its work) has its runs in job_runs.
        const [waiting, delayed] = await Promise.all([owner.getJobs(['waiting', 'prioritized']), owner.getJobs(['delayed'])]);
        return [...waiting, ...delayed.filter((j) => j.repeatJobKey === undefined && j.attemptsMade === 0)];
      });
      return jobs
        .filter((j): j is Job<OwnerJobData> & { id: string } => j !== undefined && j.id !== undefined)
        .sort((a, b) => a.timestamp - b.timestamp)
        .map((j) => ({ runId: j.id, name: j.name, data: j.data.data, trigger: j.data.trigger }));
    },
    reloadSchedules: () => produce('update job schedulers', reloadSchedules),
    async stop() {
      clearInterval(resync);
      producer.off('ready', syncSchedules);
      await closeWithinGrace((async () => {
        await Promise.allSettled([worker.close(), ioWorker?.close()]);
        await Promise.allSettled([producers.close(), ownerEvents.close()]);
      })());
      connections.forEach((c) => c.disconnect());
    },
  };
}

