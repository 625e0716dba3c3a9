// Incremental and on-demand scoring runs over random histories (test/helpers/random-history.ts),
// seeded so that a failure names the seed and step that reproduce it. Two stores receive the same
// raw rows batch after batch: one is scored incrementally (and now and then on demand for an
// address, with more rows arriving before the next incremental run), the other in full each
// time. After every step both must serve the same tables and stats.
import { copyFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, expect, it } from 'vitest';
import { databaseFileName, openStore, type Store } from '../pipeline/store/store.ts';
import { runScoring } from '../pipeline/score/run.ts';
import { tempDataDir } from './helpers/temp.ts';
import { expectAddressActivityMatchesPayments, expectPaymentsMatchView, servingState } from './helpers/scoring-invariants.ts';
import { askedAbout, paymentAddressChanges, randomHistory } from './helpers/random-history.ts';

const seeds = Array.from({ length: 20 }, (_, i) => i + 1);
const steps = 2;

const dataDir = tempDataDir('random-histories');
let template: string;

// Migrating a new database takes a quarter of a second: every store starts as a copy of one.
beforeAll(async () => {
  const store = await openStore({ dataDir: path.join(dataDir, 'template'), readConnections: 1 });
  template = store.file;
  await store.close();
});

async function openCopy(name: string): Promise<Store> {
  const dir = path.join(dataDir, name);
  mkdirSync(dir);
  copyFileSync(template, path.join(dir, databaseFileName));
  return openStore({ dataDir: dir, readConnections: 1 });
}

// The stats bodies of the newest run, without the time they were written at.
async function newestStats(store: Store): Promise<Record<string, unknown>> {
  const rows = await store.read(`SELECT name, body::VARCHAR AS body FROM run_stats WHERE run_id = (SELECT max(run_id) FROM run_stats)`);
  return Object.fromEntries(rows.map((row) => {
    const { as_of_time: _, ...body } = JSON.parse(String(row.body));
    return [row.name, body];
  }));
}

async function served(store: Store): Promise<Record<string, unknown>> {
  return { ...(await servingState(store)), run_stats: await newestStats(store) };
}

/** Runs `check`, naming `at` in the message of its failure. */
async function labelled<T>(at: string, check: () => Promise<T>): Promise<T> {
  try {
    return await check();
  } catch (err) {
    if (err instanceof Error) err.message = `${at}: ${err.message}`;
    throw err;
  }
}

it.each(seeds)('seed %i: incremental and on-demand runs serve what a full run does, step after step', async (seed) => {
  const history = randomHistory(seed);
  const incremental = await openCopy(`${seed}-incremental`);
  const full = await openCopy(`${seed}-full`);
  const stores = [incremental, full];
  const write = async (sql = history.next()) => {
    if (sql) await Promise.all(stores.map((store) => store.write((tx) => tx.run(sql))));
  };
  try {
    // The history so far, scored in full: where the incremental runs start from.
    await write();
    await write();
    expect((await runScoring(incremental)).kind, `seed ${seed}`).toBe('full');
    // A run is full, whatever was asked, after a reorg rolled back the cursor the run it follows
    // recorded (each chain's newest cursor row then, sql/score/inputs.sql). An on-demand run keeps
    // those watermarks, any other records its own.
    const cursors = async () =>
      Object.fromEntries((await incremental.read('SELECT chain, max(block_number)::INTEGER AS block FROM ingest_cursors GROUP BY chain'))
        .map((row) => [String(row.chain), Number(row.block)]));
    let scored = await cursors();
    let rollbacksSeen = history.rollbacks.length;
    const expectedKind = (kind: 'incremental' | 'addresses') =>
      history.rollbacks.slice(rollbacksSeen).some((r) => r.from <= (scored[r.chain] ?? -1)) ? 'full' : kind;
    const recorded = async (kind: string) => {
      if (kind === 'addresses') return;
      scored = await cursors();
      rollbacksSeen = history.rollbacks.length;
    };
    for (let step = 1; step <= steps; step++) {
      const at = `seed ${seed}, step ${step}`;
      await write();
      if (history.random.chance(1 / 3)) {
        // Asked about an address, then more rows arrive. The full store only records the question
        // (as the run on demand does): its next run scores everything anyway.
        const address = history.someAddress();
        const asked = await runScoring(incremental, { addresses: [address] });
        expect(asked.kind, at).toBe(expectedKind('addresses'));
        // The activity facts live in the chain rows: an on-demand run rescores every address whose
        // payments it brought up to date, so they match the payments after it too.
        await labelled(at, () => expectPaymentsMatchView(incremental));
        await recorded(asked.kind);
        await full.write((tx) => tx.run(askedAbout(address, 'cli')));
        await write();
      }
      const wantedKind = expectedKind('incremental');
      const [run] = await Promise.all([runScoring(incremental), runScoring(full, { full: true })]);
      expect(run.kind, at).toBe(wantedKind);
      await recorded(run.kind);
      const [got, wanted] = await Promise.all([served(incremental), served(full)]);
      expect(got, at).toEqual(wanted);
    }
    // Runs keep the payments and their aggregates up to date by deltas: a wrong one stays wrong.
    await labelled(`seed ${seed}, after step ${steps}`, () => expectPaymentsMatchView(incremental));
    // The two chains share addresses (19 of the 20 seeds end with some paid on both), whose
    // activity over all chains counts each counterparty and day once.
    await labelled(`seed ${seed}, after step ${steps}`, () => expectAddressActivityMatchesPayments(full));
  } finally {
    await Promise.all(stores.map((store) => store.close()));
  }
});

// An agent's row depends on other agents only through how many agents share its payment address:
// when an agent's payment address changes (a wallet-less agent passing to another owner, a wallet
// set to another agent's or cleared), the agents paid at its old and new address are rescored
// with nothing else of theirs changed; an agent rescored for a client's payments still counts
// every agent at its address. Then evidence alone changes an agent. (The random histories reach
// these cases too rarely to rely on.)
it('an agent changing payment address rescores the agents paid at its old and new one; new evidence rescores its agent', async () => {
  const { batches, owners: [a, b], wallet } = paymentAddressChanges();
  const incremental = await openCopy('pay-to-incremental');
  const full = await openCopy('pay-to-full');
  const stores = [incremental, full];
  const sharing = async (store: Store) =>
    Object.fromEntries((await store.read('SELECT agent_id, owner, agent_wallet, agents_sharing_owner, run_id FROM agent_scores ORDER BY agent_id'))
      .map((row) => [Number(row.agent_id), [row.owner, row.agent_wallet, row.agents_sharing_owner, row.run_id]]));
  const next = async (batch: string) => {
    await Promise.all(stores.map((store) => store.write((tx) => tx.run(batch))));
    const [run] = await Promise.all([runScoring(incremental), runScoring(full, { full: true })]);
    expect(await served(incremental)).toEqual(await served(full));
    return run;
  };
  try {
    expect((await next(batches[0]!)).kind).toBe('full');
    expect(await sharing(incremental)).toEqual({ 1: [a, null, 2, 1], 2: [a, null, 2, 1], 3: [b, wallet, 1, 1] });
    expect((await next(batches[1]!)).kind).toBe('incremental');
    expect(await sharing(incremental)).toEqual({ 1: [b, null, 1, 2], 2: [a, null, 1, 2], 3: [b, wallet, 1, 1] });
    expect((await next(batches[2]!)).kind).toBe('incremental');
    expect(await sharing(incremental)).toEqual({ 1: [b, wallet, 2, 3], 2: [a, null, 1, 2], 3: [b, wallet, 2, 3] });
    expect((await next(batches[3]!)).kind).toBe('incremental');
    expect(await sharing(incremental)).toEqual({ 1: [b, wallet, 2, 3], 2: [a, null, 1, 2], 3: [b, wallet, 2, 4] });
    expect((await next(batches[4]!)).kind).toBe('incremental');
    expect(await sharing(incremental)).toEqual({ 1: [b, wallet, 2, 3], 2: [a, null, 1, 5], 3: [b, wallet, 2, 4] });
    expect(await incremental.read(`SELECT website_url, github_stars FROM registered_agents WHERE agent_id = 2`))
      .toEqual([{ website_url: 'https://agent2.example', github_stars: 120 }]);
    expect((await next(batches[5]!)).kind).toBe('incremental');
    expect(await sharing(incremental)).toEqual({ 1: [b, null, 1, 6], 2: [a, null, 1, 5], 3: [b, wallet, 1, 6] });
  } finally {
    await Promise.all(stores.map((store) => store.close()));
  }
});
