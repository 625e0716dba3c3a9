// The locks on work two jobs must not do at once (jobs/work-locks.ts): which a job takes, who waits
// for whom, what counts as busy, and that a failure lets go.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../pipeline/store/store.ts';
import { workKeys, workLocks } from '../jobs/work-locks.ts';
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

  it('a key named twice is taken once and let go', async () => {
    const locks = workLocks(store);
    await expect(locks.hold(['twice', 'twice'], async () => locks.busy(['twice']))).resolves.toBe(true);
    expect(locks.busy(['twice'])).toBe(false);
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
  });

  it('score: every run but the rescoring of one address; export and the sanctions list: none', () => {
    expect(workKeys('score', {}, config)).toEqual(['score']);
    expect(workKeys('score', { full: true }, config)).toEqual(['score']);
    expect(workKeys('score', { address: '0x' + '1'.repeat(40) }, config)).toEqual([]);
    expect(workKeys('export', {}, config)).toEqual([]);
    expect(workKeys('refresh-sanctions-list', {}, config)).toEqual([]);
  });
});
