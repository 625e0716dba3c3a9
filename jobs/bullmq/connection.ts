// Redis connections for BullMQ, one kind per role (BullMQ's own advice): workers retry forever
// and wait out a Redis restart; producers fail fast, so a caller gets an error at once instead
// of a request that hangs while Redis is down.
import { Redis } from 'ioredis';

export const queueNames = { owner: 'reputation-owner', io: 'reputation-io' } as const;

export class QueueUnavailableError extends Error {
  override name = 'QueueUnavailableError';
}

export function workerConnection(url: string): Redis {
  return quiet(new Redis(url, { maxRetriesPerRequest: null, retryStrategy: (times) => Math.min(times * 200, 2_000) }));
}

export function producerConnection(url: string): Redis {
  return quiet(
    new Redis(url, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 1,
      connectTimeout: 2_000,
      retryStrategy: (times) => Math.min(times * 200, 2_000),
    }),
  );
}

// ioredis reconnects by itself; an outage surfaces where a command fails (as
// QueueUnavailableError, or a worker's 'error' event), so the connection's own error events
// would only repeat it on every reconnect attempt.
function quiet(redis: Redis): Redis {
  redis.on('error', () => undefined);
  return redis;
}

/** Runs a producer call, turning a Redis outage into QueueUnavailableError. */
export async function produce<T>(what: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw new QueueUnavailableError(`cannot ${what}: the job queue (Redis) is unavailable: ${(err as Error).message}`);
  }
}
