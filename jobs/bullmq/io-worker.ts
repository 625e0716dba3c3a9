// `reputation worker`: processes the io queue (block ranges read over JSON-RPC) and hands the rows
// back as job results. It never opens the database: only the owner does.
import { Worker, UnrecoverableError } from 'bullmq';
import { rpcUrlSetting, type Config } from '../../pipeline/config.ts';
import type { Logger } from '../../pipeline/log.ts';
import type { Rpc } from '../../pipeline/chain/rpc.ts';
import { RangeTooLargeError } from '../../pipeline/chain/rpc.ts';
import { createChainRpc } from '../../pipeline/ingest/ingest-chain.ts';
import { encodeChunk, localChunkFetcher } from '../../pipeline/ingest/fetch-chunk.ts';
import type { SourceName } from '../../pipeline/ingest/source-names.ts';
import { closeWithinGrace, queueNames, workerConnection } from './connection.ts';
import type { FetchChunkJobData, FetchChunkJobResult } from './remote-fetcher.ts';

export interface IoWorker {
  waitUntilReady(): Promise<unknown>;
  /**
   * Finishes the jobs in hand, then closes the Redis connection (BullMQ leaves a connection it was
   * given open); with Redis down, after the grace period.
   */
  close(): Promise<void>;
}

export function startIoWorker(config: Config, log: Logger, options: { concurrency?: number } = {}): IoWorker {
  if (!config.redisUrl) throw new Error('the worker needs REDIS_URL');
  const rpcs = new Map<string, Rpc>();
  const fetchChunk = localChunkFetcher((chain) => {
    let rpc = rpcs.get(chain.name);
    if (!rpc) rpcs.set(chain.name, (rpc = createChainRpc(chain)));
    return rpc;
  });

  const connection = workerConnection(config.redisUrl);
  const worker = new Worker<FetchChunkJobData, FetchChunkJobResult>(
    queueNames.io,
    async (job) => {
      const chain = config.chains[job.data.chain];
      // Without the chain's RPC URL this worker can never do the job: don't retry it here.
      if (!chain) throw new UnrecoverableError(`this worker has no chain ${job.data.chain} configured (set ${rpcUrlSetting(job.data.chain)})`);
      try {
        const chunk = await fetchChunk({ chain, source: job.data.source as SourceName, from: BigInt(job.data.from), to: BigInt(job.data.to) });
        return { chunk: encodeChunk(chunk) };
      } catch (err) {
        if (err instanceof RangeTooLargeError) {
          return { rangeTooLarge: true, message: err.message, suggestedBlocks: err.suggestedBlocks === null ? null : String(err.suggestedBlocks) };
        }
        throw err;
      }
    },
    { connection, prefix: config.queuePrefix, concurrency: options.concurrency ?? 4 },
  );
  worker.on('failed', (job, err) => log.warn('io job failed', { job: job?.id, attempt: job?.attemptsMade, error: err.message }));
  worker.on('error', (err) => log.warn('io worker connection error', { error: err.message }));
  return {
    waitUntilReady: () => worker.waitUntilReady(),
    async close() {
      await closeWithinGrace(worker.close());
      connection.disconnect();
    },
  };
}
