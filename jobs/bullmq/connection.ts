// Redis connections for BullMQ, one kind per role (BullMQ's own advice): workers retry forever
// and wait out a Redis restart; producers fail fast, so a caller gets an error at once instead
// of a request that hangs while Redis is down.
import { Redis } from 'ioredis';
import { setTimeout as sleep } from 'node:timers/promises';

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
    // A queue not created yet says so itself (./producers.ts): said once, not twice.
    const reason = err instanceof QueueUnavailableError ? err.message : `the job queue (Redis) is unavailable: ${(err as Error).message}`;
    throw new QueueUnavailableError(`cannot ${what}: ${reason}`);
  }
}

// How long closing a worker or queue may wait for Redis before its connections are dropped.
const closeGraceMs = 10_000;

/**
 * Waits for `closing` (BullMQ closing workers and queues, which waits for Redis) at most the grace
 * period: when Redis is down it never ends (taskforcesh/bullmq#4656). The caller then drops its
 * connections; jobs in hand finish or are picked up again as stalled.
 */
export async function closeWithinGrace(closing: Promise<unknown>): Promise<void> {
  const grace = new AbortController();
  await Promise.race([closing, sleep(closeGraceMs, undefined, { signal: grace.signal }).catch(() => undefined)]);
  grace.abort();
}
