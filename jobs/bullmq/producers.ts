// The owner's producer queues on a fail-fast connection. BullMQ sends INFO when a queue is
// created, which a fail-fast connection refuses while it is still connecting; so the queues are
// created on the connection's first 'ready', and until then every add fails at once with
// QueueUnavailableError. After that, ioredis reconnects the same client by itself.
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { QueueUnavailableError, queueNames } from './connection.ts';

export interface Producers {
  owner(): Queue;
  io(): Queue;
  /** Resolves when the queues exist, or after `ms` if Redis has not answered by then. */
  ready(ms: number): Promise<boolean>;
  close(): Promise<void>;
}

export function createProducers(connection: Redis, prefix: string, onFirstReady: () => void): Producers {
  let queues: { owner: Queue; io: Queue } | null = null;
  const waiters: (() => void)[] = [];
  const create = () => {
    if (queues) return;
    // skipWaitingForReady: an add while Redis is down fails at once instead of waiting for it.
    const options = { connection, prefix, skipWaitingForReady: true };
    queues = { owner: new Queue(queueNames.owner, options), io: new Queue(queueNames.io, options) };
    // Outages surface where an add fails; the 'error' events would only repeat them.
    queues.owner.on('error', () => undefined);
    queues.io.on('error', () => undefined);
    waiters.splice(0).forEach((w) => w());
    onFirstReady();
  };
  if (connection.status === 'ready') queueMicrotask(create);
  else connection.once('ready', create);

  const get = (which: 'owner' | 'io') => () => {
    if (!queues) throw new QueueUnavailableError('the job queue (Redis) is unavailable: not connected yet');
    return queues[which];
  };
  return {
    owner: get('owner'),
    io: get('io'),
    ready: (ms) =>
      new Promise<boolean>((resolve) => {
        if (queues) return resolve(true);
        const timer = setTimeout(() => resolve(false), ms);
        waiters.push(() => (clearTimeout(timer), resolve(true)));
      }),
    async close() {
      connection.off('ready', create);
      if (queues) await Promise.allSettled([queues.owner.close(), queues.io.close()]);
    },
  };
}
