// Redis for job tests: a unique queue prefix on the machine's Redis, or a private redis-server on
// a free port that a test can kill and start again.
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { randomBytes } from 'node:crypto';
import { freePort } from './free-port.ts';
import { afterAll } from 'vitest';
import { Redis } from 'ioredis';

export const sharedRedisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** A queue prefix of its own on the shared Redis; its keys are deleted after the test file. */
export function uniquePrefix(label: string): string {
  const prefix = `test-${label}-${randomBytes(4).toString('hex')}`;
  afterAll(async () => {
    const redis = new Redis(sharedRedisUrl);
    try {
      let cursor = '0';
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 500);
        if (keys.length > 0) await redis.del(...keys);
        cursor = next;
      } while (cursor !== '0');
    } finally {
      redis.disconnect();
    }
  });
  return prefix;
}

async function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (d) => (socket.destroy(), resolve(d.toString().startsWith('+PONG'))));
    socket.once('error', () => resolve(false));
  });
}

export interface PrivateRedis {
  url: string;
  start(): Promise<void>;
  /** SIGKILL: the data is gone, as with the machine's non-persistent Redis. */
  kill(): Promise<void>;
}

export async function privateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  let child: ChildProcess | null = null;
  const redis: PrivateRedis = {
    url: `redis://127.0.0.1:${port}`,
    async start() {
      child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
      for (let i = 0; i < 100 && !(await answers(port)); i++) await sleep(50);
    },
    async kill() {
      const c = child;
      child = null;
      if (!c || c.exitCode !== null) return;
      const exited = new Promise((resolve) => c.once('exit', resolve));
      c.kill('SIGKILL');
      await exited;
    },
  };
  await redis.start();
  return redis;
}
