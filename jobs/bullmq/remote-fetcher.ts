// The owner's ChunkFetcher when workers run elsewhere: each block range becomes an io job with a
// deterministic id (fetch-<chain>-<source>-<from>-<to>), so asking twice is a no-op, and the
// owner waits for the worker's result. If Redis lost the job (a restart without persistence),
// the owner adds it again.
//
// The owner polls the job's state rather than waiting on QueueEvents: across a Redis restart a
// QueueEvents reader can stop delivering (test/jobs-bullmq.test.ts caught an ingest waiting
// forever), while a poll sees the restarted Redis as soon as it answers.
import { Job, type Queue } from 'bullmq';
import { setTimeout as sleep } from 'node:timers/promises';
import { RangeTooLargeError } from '../../pipeline/chain/rpc.ts';
import { decodeChunk, type ChunkFetcher } from '../../pipeline/ingest/fetch-chunk.ts';

export interface FetchChunkJobData {
  chain: string;
  source: string;
  from: string;
  to: string;
}

export type FetchChunkJobResult = { chunk: string } | { rangeTooLarge: true; message: string; suggestedBlocks: string | null };

// How long one wait lasts before the job is added again (a no-op while it exists), and how often
// its state is read meanwhile: quickly at first, since most ranges take milliseconds.
const waitMs = 10_000;
const firstPollMs = 10;
const maxPollMs = 250;
// A range nobody has read after this long (no worker running, Redis down) fails the ingest, which
// its schedule retries later.
const deadlineMs = 5 * 60_000;
const pauseMs = 1_000;

export function remoteChunkFetcher(ioQueue: () => Queue): ChunkFetcher {
  return async ({ chain, source, from, to }) => {
    const jobId = `fetch-${chain.name}-${source}-${from}-${to}`;
    const data: FetchChunkJobData = { chain: chain.name, source, from: String(from), to: String(to) };
    const deadline = Date.now() + deadlineMs;
    for (let attempt = 0; ; attempt++) {
      if (Date.now() > deadline) throw new Error(`no worker read ${jobId} within ${deadlineMs / 1000} s: is \`reputation worker\` running?`);
      if (attempt > 0) await sleep(pauseMs);
      try {
        await ioQueue().add('fetch-chunk', data, {
          jobId,
          attempts: 5,
          backoff: { type: 'exponential', delay: 500 },
          removeOnComplete: { age: 600 },
          removeOnFail: { age: 600 },
        });
      } catch {
        continue; // Redis unavailable: try again until the deadline
      }
      const outcome = await waitForJob(ioQueue, jobId);
      if (outcome.state === 'pending') continue; // still queued or running: add again (a no-op) and wait
      if (outcome.state === 'missing') continue; // lost with Redis: add it again
      if (outcome.state === 'failed') {
        // Clear it, so that the next add really runs it again.
        await removeJob(ioQueue, jobId);
        throw new Error(`fetching ${jobId} failed in a worker: ${outcome.reason}`);
      }
      const result = outcome.value;
      // Results are read once: a later request for the same range must read the chain again.
      await removeJob(ioQueue, jobId);
      if ('rangeTooLarge' in result) {
        throw new RangeTooLargeError(result.message, result.suggestedBlocks === null ? null : BigInt(result.suggestedBlocks));
      }
      return decodeChunk(result.chunk);
    }
  };
}

type Outcome =
  | { state: 'completed'; value: FetchChunkJobResult }
  | { state: 'failed'; reason: string }
  | { state: 'missing' }
  | { state: 'pending' };

/** Reads the job's state until it finished, disappeared, or waitMs passed (Redis errors count as pending). */
async function waitForJob(ioQueue: () => Queue, jobId: string): Promise<Outcome> {
  const until = Date.now() + waitMs;
  for (let pause = firstPollMs; Date.now() < until; pause = Math.min(pause * 2, maxPollMs)) {
    try {
      // State first, then the job: a job read before it finished carries no return value.
      const state = await ioQueue().getJobState(jobId);
      if (state === 'unknown') return { state: 'missing' };
      if (state === 'completed' || state === 'failed') {
        const job = await Job.fromId<FetchChunkJobData, FetchChunkJobResult>(ioQueue(), jobId);
        if (!job) return { state: 'missing' };
        return state === 'completed' ? { state, value: job.returnvalue } : { state, reason: job.failedReason };
      }
    } catch {
      // Redis unavailable: keep waiting until it answers or this wait ends.
    }
    await sleep(pause);
  }
  return { state: 'pending' };
}

async function removeJob(ioQueue: () => Queue, jobId: string): Promise<void> {
  await Promise.resolve()
    .then(() => Job.fromId(ioQueue(), jobId))
    .then((j) => j?.remove())
    .catch(() => undefined);
}
