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

const waitMs = 15_000;
const addRetryMs = 60_000;

export function remoteChunkFetcher(ioQueue: () => Queue, events: QueueEvents): ChunkFetcher {
  return async ({ chain, source, from, to }) => {
    const jobId = `fetch-${chain.name}-${source}-${from}-${to}`;
    const data: FetchChunkJobData = { chain: chain.name, source, from: String(from), to: String(to) };
    const addDeadline = Date.now() + addRetryMs;
    for (;;) {
      let job: Job;
      try {
        job = await ioQueue().add('fetch-chunk', data, {
          jobId,
          attempts: 5,
          backoff: { type: 'exponential', delay: 500 },
          removeOnComplete: { age: 600 },
          removeOnFail: { age: 600 },
        });
      } catch (err) {
        if (Date.now() > addDeadline) throw err;
        await sleep(1_000);
        continue;
      }
      let result: FetchChunkJobResult;
      try {
        result = (await job.waitUntilFinished(events, waitMs)) as FetchChunkJobResult;
      } catch (err) {
        const message = (err as Error).message;
        if (/timed out|Missing key|Connection|ECONNREFUSED|closed/i.test(message)) continue;
        // The worker gave up on this range: clear the failed job so a retry can add it again.
        await Promise.resolve()
          .then(() => Job.fromId(ioQueue(), jobId))
          .then((j) => j?.remove())
          .catch(() => undefined);
        throw new Error(`fetching ${jobId} failed in a worker: ${message}`);
      }
      if ('rangeTooLarge' in result) {
        await job.remove().catch(() => undefined);
        throw new RangeTooLargeError(result.message, result.suggestedBlocks === null ? null : BigInt(result.suggestedBlocks));
      }
      return decodeChunk(result.chunk);
    }
  };
}
