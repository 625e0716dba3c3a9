// Whether a promise settles within a time, without leaving the timer behind for the rest of the run.
import { setTimeout as sleep } from 'node:timers/promises';

/** 'done' if `done` resolves within ms, else 'waiting' (a rejection is passed on). */
export function settlesWithin(ms: number, done: Promise<unknown>): Promise<'done' | 'waiting'> {
  const timeout = new AbortController();
  return Promise.race([done.then(() => 'done' as const), sleep(ms, 'waiting' as const, { signal: timeout.signal })]).finally(() => timeout.abort());
}
