// The locks on work two jobs must not do at once (jobs/work-locks.ts): which a job takes, who waits
// for whom, what counts as busy, and that a failure lets go.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openStore, type Store } from '../pipeline/store/store.ts';
import { turnKeptMs, workKeys, workLocks, type WorkLocks } from '../jobs/work-locks.ts';
import { loadConfig } from '../pipeline/config.ts';
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

/** Whether a job that asks without keeping a turn is told to wait. */
const busy = (locks: WorkLocks, keys: string[]) => !locks.mayStart('probe', keys, false);

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
    expect(busy(locks, ['k'])).toBe(false);
    const done = [locks.hold(['k'], first.run), locks.hold(['k', 'j'], second.run)];
    await settle();
    // 'j' is only waited for: the second work has not started, yet 'j' is taken.
    expect(log).toEqual(['first start']);
    expect(busy(locks, ['j'])).toBe(true);
    expect(busy(locks, ['x', 'k'])).toBe(true);
    expect(busy(locks, ['x'])).toBe(false);
    first.end();
    await settle();
    expect(busy(locks, ['k'])).toBe(true);
    second.end();
    await Promise.all(done);
    expect(busy(locks, ['k', 'j'])).toBe(false);
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
    expect(busy(locks, ['f'])).toBe(false);
    await expect(locks.hold(['f'], async () => 'next')).resolves.toBe('next');
  });

  it('are kept per open store: work on another store never waits', async () => {
    const log: string[] = [];
    const held = work('held', log);
    const done = workLocks(store).hold(['shared'], held.run);
    expect(busy(workLocks(other), ['shared'])).toBe(false);
    await expect(workLocks(other).hold(['shared'], async () => 'other store')).resolves.toBe('other store');
    held.end();
    await done;
  });

  it('a key named twice is taken once and let go', async () => {
    const locks = workLocks(store);
    await expect(locks.hold(['twice', 'twice'], async () => busy(locks, ['twice']))).resolves.toBe(true);
    expect(busy(locks, ['twice'])).toBe(false);
  });
});

describe('jobs that cannot wait here (BullMQ): mayStart', () => {
  let store: Store;
  beforeAll(async () => {
    store = await openStore({ dataDir: tempDataDir('work-locks-turns') });
  });
  afterAll(() => store?.close());

  it('a job that needs several keys keeps its turn against jobs that asked after it, for as long as it asks', async () => {
    const locks = workLocks(store);
    const log: string[] = [];
    const a = work('a', log);
    const holding = locks.hold(['a'], a.run);
    // 'every' needs a and b; it asked first, so a later job for b alone waits for it too.
    expect(locks.mayStart('every', ['a', 'b'])).toBe(false);
    expect(locks.mayStart('b only', ['b'])).toBe(false);
    expect(locks.mayStart('c only', ['c'])).toBe(true);
    a.end();
    await holding;
    expect(locks.mayStart('b only', ['b'])).toBe(false);
    expect(locks.mayStart('every', ['a', 'b'])).toBe(true);
    const every = locks.hold(['a', 'b'], async () => 'every');
    expect(locks.mayStart('b only', ['b'])).toBe(false);
    await every;
    expect(locks.mayStart('b only', ['b'])).toBe(true);
  });

  it('asking again keeps a job its place: it is not sent behind jobs that asked after it', async () => {
    const locks = workLocks(store);
    const held = work('held', []);
    const holding = locks.hold(['q'], held.run);
    expect(locks.mayStart('older', ['q'])).toBe(false);
    expect(locks.mayStart('younger', ['q'])).toBe(false);
    expect(locks.mayStart('older', ['q'])).toBe(false);
    await settle();
    held.end();
    await holding;
    expect(locks.mayStart('younger', ['q'])).toBe(false);
    expect(locks.mayStart('older', ['q'])).toBe(true);
    expect(locks.mayStart('younger', ['q'])).toBe(true);
  });

  it('a job that stops asking loses its turn after turnKeptMs; one that does not keep a turn never takes one', () => {
    const locks = workLocks(store);
    let now = Date.parse('2026-11-29T00:00:00Z');
    const clock = vi.spyOn(Date, 'now').mockImplementation(() => now);
    try {
      // 'gone' waits for k, held, and then is removed from the queue: it never asks again.
      const locksHeld = locks.hold(['k'], () => new Promise<void>(() => undefined));
      void locksHeld;
      // A job that will not ask again (a scheduler's) is told to wait but takes no turn on j.
      expect(locks.mayStart('passing', ['k', 'j'], false)).toBe(false);
      expect(locks.mayStart('j now', ['j'], false)).toBe(true);
      expect(locks.mayStart('gone', ['k', 'j'])).toBe(false);
      expect(locks.mayStart('later', ['j'])).toBe(false);
      now += turnKeptMs * 0.6;
      expect(locks.mayStart('later', ['j'])).toBe(false);
      now += turnKeptMs * 0.6;
      // 'gone' lost its turn, 'later' kept its own by asking: a newcomer waits for it.
      expect(locks.mayStart('newcomer', ['j'])).toBe(false);
      expect(locks.mayStart('later', ['j'])).toBe(true);
    } finally {
      clock.mockRestore();
    }
  });
});

describe('the locks a job takes', () => {
  // Two configured chains; 'imported' is a chain only the database knows.
  const config = loadConfig({ DATA_DIR: tempDataDir('work-keys'), RPC_URL_DEVNET: 'http://127.0.0.1:9', RPC_URL_BASE: 'http://127.0.0.1:9' });

  it('ingest: its chain, or every configured chain', () => {
    expect(workKeys('ingest', { chain: 'base', source: 'token' }, config)).toEqual(['ingest:base']);
    expect(workKeys('ingest', {}, config).sort()).toEqual(['ingest:base', 'ingest:devnet']);
  });

  it("fetch-metadata: its chain; every chain's and '*' for a fetch of every chain; '*' too for a chain only the database knows", () => {
    expect(workKeys('fetch-metadata', { chain: 'base', limit: 5 }, config)).toEqual(['fetch-metadata:base']);
    expect(workKeys('fetch-metadata', {}, config).sort()).toEqual(['fetch-metadata:*', 'fetch-metadata:base', 'fetch-metadata:devnet']);
    expect(workKeys('fetch-metadata', { chain: 'imported' }, config)).toEqual(['fetch-metadata:imported', 'fetch-metadata:*']);
    expect(workKeys('fetch-metadata', { chain: 'constructor' }, config)).toEqual(['fetch-metadata:constructor', 'fetch-metadata:*']);
  });

  it('score: every run; export and the sanctions list: none', () => {
    expect(workKeys('score', {}, config)).toEqual(['score']);
    expect(workKeys('score', { full: true }, config)).toEqual(['score']);
    // Rescoring one address may be a full run, and waits for the writer a scoring run holds.
    expect(workKeys('score', { address: '0x' + '1'.repeat(40) }, config)).toEqual(['score']);
    expect(workKeys('export', {}, config)).toEqual([]);
    expect(workKeys('refresh-sanctions-list', {}, config)).toEqual([]);
  });
});
