// The locks on work two jobs must not do at once (jobs/work-locks.ts): who waits for whom, what
// counts as busy, and that a failure lets go.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../pipeline/store/store.ts';
import { workLocks } from '../jobs/work-locks.ts';
import { tempDataDir } from './helpers/temp.ts';

/** A piece of work that ends when told to, recording when it started and ended. */
function work(name: string, log: string[]) {
  let end!: () => void;
  const ended = new Promise<void>((resolve) => (end = resolve));
  return {
    run: async () => {
      log.push(`${name} start`);
      await ended;
      log.push(`${name} end`);
      return name;
    },
    end,
  };
}

// Lets every promise that can settle settle (the locks hand over in promise callbacks).
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('work locks', () => {
  let store: Store;
  let other: Store;
  beforeAll(async () => {
    store = await openStore({ dataDir: tempDataDir('work-locks') });
    other = await openStore({ dataDir: tempDataDir('work-locks-other') });
  });
  afterAll(async () => {
    await store?.close();
    await other?.close();
  });

  it('runs work on one key one after the other, and work on other keys at once', async () => {
    const locks = workLocks(store);
    const log: string[] = [];
    const [a1, a2, b] = [work('a1', log), work('a2', log), work('b', log)];
    const done = [locks.hold(['a'], a1.run), locks.hold(['a'], a2.run), locks.hold(['b'], b.run)];
    await settle();
    expect(log).toEqual(['a1 start', 'b start']);
    a1.end();
    await settle();
    expect(log).toEqual(['a1 start', 'b start', 'a1 end', 'a2 start']);
    a2.end();
    b.end();
    expect(await Promise.all(done)).toEqual(['a1', 'a2', 'b']);
  });

  it('is busy on a key while work holds it or waits for it, and free once all of it ended', async () => {
    const locks = workLocks(store);
    const log: string[] = [];
    const [first, second] = [work('first', log), work('second', log)];
    expect(locks.busy(['k'])).toBe(false);
    const done = [locks.hold(['k'], first.run), locks.hold(['k', 'j'], second.run)];
    await settle();
    // 'j' is only waited for: the second work has not started, yet 'j' is taken.
    expect(log).toEqual(['first start']);
    expect(locks.busy(['j'])).toBe(true);
    expect(locks.busy(['x', 'k'])).toBe(true);
    expect(locks.busy(['x'])).toBe(false);
    first.end();
    await settle();
    expect(locks.busy(['k'])).toBe(true);
    second.end();
    await Promise.all(done);
    expect(locks.busy(['k', 'j'])).toBe(false);
  });

  it('work on several keys waits for the holder of each, and later work waits for it on all of them', async () => {
    const locks = workLocks(store);
    const log: string[] = [];
    const [ab, bc, ca] = [work('ab', log), work('bc', log), work('ca', log)];
    const done = [locks.hold(['a', 'b'], ab.run), locks.hold(['b', 'c'], bc.run), locks.hold(['c', 'a'], ca.run)];
    await settle();
    expect(log).toEqual(['ab start']);
    ab.end();
    await settle();
    // 'ca' shares 'a' with 'ab' only, but queued after 'bc' on 'c': it waits for both.
    expect(log).toEqual(['ab start', 'ab end', 'bc start']);
    bc.end();
    await settle();
    expect(log.at(-1)).toBe('ca start');
    ca.end();
    expect(await Promise.all(done)).toEqual(['ab', 'bc', 'ca']);
  });

  it('work that fails lets go of its keys, and the failure reaches its caller', async () => {
    const locks = workLocks(store);
    await expect(locks.hold(['f'], async () => Promise.reject(new Error('broken')))).rejects.toThrow('broken');
    expect(locks.busy(['f'])).toBe(false);
    await expect(locks.hold(['f'], async () => 'next')).resolves.toBe('next');
  });

  it('are kept per open store: work on another store never waits', async () => {
    const log: string[] = [];
    const held = work('held', log);
    const done = workLocks(store).hold(['shared'], held.run);
    expect(workLocks(other).busy(['shared'])).toBe(false);
    await expect(workLocks(other).hold(['shared'], async () => 'other store')).resolves.toBe('other store');
    held.end();
    await done;
  });
});
