// The owner's ChunkFetcher when workers run elsewhere: each block range becomes an io job with a
// deterministic id (fetch-<chain>-<source>-<from>-<to>), so asking twice is a no-op, and the
// owner waits for the worker's result. If Redis lost the job (a restart without persistence),
// the owner adds it again.
import { Job, type Queue, type QueueEvents } from 'bullmq';
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

// How long one wait for the job's completion event lasts before the job is looked up again. Short:
// across a Redis restart the owner's QueueEvents can miss completion events (its blocking read of
// the events stream is cut; seen in test/jobs-bullmq.test.ts), and then only the look-up at the
// start of each wait notices that the job finished.
const waitMs = 2_000;
// A range nobody has read after this long (no worker running, Redis down) fails the ingest, which
// its schedule retries later.
const deadlineMs = 5 * 60_000;
const pauseMs = 1_000;

export function remoteChunkFetcher(ioQueue: () => Queue, events: QueueEvents): ChunkFetcher {
  return async ({ chain, source, from, to }) => {
    const jobId = `fetch-${chain.name}-${source}-${from}-${to}`;
    const data: FetchChunkJobData = { chain: chain.name, source, from: String(from), to: String(to) };
    const deadline = Date.now() + deadlineMs;
    for (let attempt = 0; ; attempt++) {
      if (Date.now() > deadline) throw new Error(`no worker read ${jobId} within ${deadlineMs / 1000} s: is \`reputation worker\` running?`);
      if (attempt > 0) await sleep(pauseMs);
      let job: Job;
      try {
        job = await ioQueue().add('fetch-chunk', data, {
          jobId,
          attempts: 5,
          backoff: { type: 'exponential', delay: 500 },
          removeOnComplete: { age: 600 },
          removeOnFail: { age: 600 },
        });
      } catch {
        continue; // Redis unavailable: try again until the deadline
      }
      let result: FetchChunkJobResult;
      try {
        result = (await job.waitUntilFinished(events, waitMs)) as FetchChunkJobResult;
      } catch (err) {
        const message = (err as Error).message;
        if (/timed out before finishing/i.test(message)) continue; // still queued or running
        // Failed (or lost with Redis): clear it, so that the next add really runs it again.
        await removeJob(ioQueue, jobId);
        if (/Missing key|Connection|ECONNREFUSED|closed/i.test(message)) continue;
        throw new Error(`fetching ${jobId} failed in a worker: ${message}`);
      }
      // Results are read once: a later request for the same range must read the chain again.
      await removeJob(ioQueue, jobId);
      if ('rangeTooLarge' in result) {
        throw new RangeTooLargeError(result.message, result.suggestedBlocks === null ? null : BigInt(result.suggestedBlocks));
      }
      return decodeChunk(result.chunk);
    }
  };
}

async function removeJob(ioQueue: () => Queue, jobId: string): Promise<void> {
  await Promise.resolve()
    .then(() => Job.fromId(ioQueue(), jobId))
    .then((j) => j?.remove())
    .catch(() => undefined);
}
