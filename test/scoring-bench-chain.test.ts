// Incremental runs over the bench's synthetic chain (bench/score-data.ts at a small size): power-law
// payers, agents paid at their wallets, feedback from paying clients, clients active elsewhere and
// sybils. Each increment pays between addresses picked across the whole population, so it reaches
// clients whose weight for an agent changes although the agent's own feedback did not. After
// several incremental runs, a full run over the same inputs must change nothing. A run whose
// predecessor recorded another model version or facilitator list is a full one.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../pipeline/store/store.ts';
import { modelVersion, runScoring } from '../pipeline/score/run.ts';
import { loadFacilitators } from '../pipeline/chain/facilitators.ts';
import { applyScoreIncrement, generateScoreData, type ScoreDataSize } from '../bench/score-data.ts';
import { tempDataDir } from './helpers/temp.ts';
import { expectPaymentsMatchView, servingState } from './helpers/scoring-invariants.ts';

const size: ScoreDataSize = { addresses: 5000, transfers: 50_000, agents: 300 };
const increments = 4;

// Five verified-or-not payments from each of the first 1,000 sybil farm addresses
// (sql/bench/score_macros.sql, bench_sybil) to addresses of the population, in the next hour.
const sybilsPay = `
SET VARIABLE bench_previous_head = (SELECT max(block_number) FROM ingest_cursors WHERE chain = 'base' AND source = 'token');
SET VARIABLE bench_head = getvariable('bench_previous_head') + 1800;
CREATE OR REPLACE TEMP TABLE bench_new_payments AS
SELECT getvariable('bench_head') * 100000 + k AS seed, getvariable('bench_previous_head') + 1 + k // 3 AS block_number,
       k % 3 = 0 AS first_in_block, (k % 3)::INTEGER * 2 + 1 AS log_index,
       1000000000000 + k // 5 AS payer_id, k AS payee_id, 1000000::HUGEINT AS value
  FROM range(5000) t(k)`;

describe('incremental runs over the bench chain', () => {
  let store: Store;
  let afterIncrements: Record<string, unknown[]>;
  let weightsChanged = 0;
  let flagsFlipped = 0;

  beforeAll(async () => {
    store = await openStore({ dataDir: tempDataDir('bench-chain') });
    await generateScoreData(store, size);
    expect((await runScoring(store)).kind).toBe('full');
    for (let i = 0; i < increments; i++) {
      await applyScoreIncrement(store, size);
      const run = await runScoring(store);
      expect(run.kind).toBe('incremental');
      // An increment adds payments only: a weight this run rewrote changed through its client's payments.
      const [row] = await store.read('SELECT count(*)::INTEGER AS n FROM feedback_weights WHERE run_id = $1', [run.runId]);
      weightsChanged += Number(row!.n);
    }
    // Then the sybils start paying: clients without payment history (weight 0) gain verified
    // counterparties. Records whose agents did not change can lose the caveat that some client
    // carries no weight; only that flag is rewritten for them (sql/score/records.sql).
    const flags = async () => new Map((await store.read('SELECT address, weightless_feedback, feedback_count FROM address_feedback')).map((r) => [r.address, r]));
    const before = await flags();
    await applyScoreIncrement(store, size, { newPayments: sybilsPay });
    expect((await runScoring(store)).kind).toBe('incremental');
    for (const [address, row] of await flags()) {
      const was = before.get(address);
      if (was && was.feedback_count === row.feedback_count && was.weightless_feedback !== row.weightless_feedback) flagsFlipped++;
    }
    await expectPaymentsMatchView(store);
    afterIncrements = await servingState(store);
    expect((await runScoring(store, { full: true })).kind).toBe('full');
  }, 120_000);

  afterAll(() => store?.close());

  it('changed some clients\' weights without new feedback for their agents (the case under test)', () => {
    expect(weightsChanged).toBeGreaterThan(0);
  });

  it('flipped the unweighted-client flag of records whose agents did not change (the second case under test)', () => {
    expect(flagsFlipped).toBeGreaterThan(0);
  });

  it('leaves every kept and serving table as one full run over the same inputs does', async () => {
    expect(await servingState(store)).toEqual(afterIncrements);
  });

  it('a run after one that predates the kept agents and feedback (or an older layout of them) is a full run', async () => {
    await store.write((tx) =>
      tx.run(`UPDATE scoring_runs SET inputs = json_merge_patch(inputs, '{"kept_tables": null}') WHERE run_id = (SELECT max(run_id) FROM scoring_runs)`),
    );
    await store.write((tx) => tx.run('DELETE FROM rated_feedback; DELETE FROM chain_feedback'));
    const run = await runScoring(store);
    expect(run.kind).toBe('full');
    expect(await servingState(store)).toEqual(afterIncrements);
  });

  it('a run after one of another model version is a full run, which changes nothing else', async () => {
    expect(modelVersion).not.toBe('v0');
    await store.write((tx) =>
      tx.run(`UPDATE scoring_runs SET inputs = json_merge_patch(inputs, '{"model_version": "v0"}') WHERE run_id = (SELECT max(run_id) FROM scoring_runs)`),
    );
    const run = await runScoring(store);
    expect(run.kind).toBe('full');
    expect(run.rescoredCount).toBe(run.addressCount);
    expect(await servingState(store)).toEqual(afterIncrements);
    // Recorded with the current version: the next run is incremental again.
    expect((await runScoring(store)).kind).toBe('incremental');
  });

  // Last: it changes which payments are verified.
  it('a new facilitator list makes the next (not forced) run a full rebuild: the new signer\'s earlier payments turn verified', async () => {
    // The relayer that sent the most payments, none of them verified (it is not a facilitator).
    const [relayer] = await store.read(
      `SELECT submitter, count(*)::INTEGER AS n, count(*) FILTER (verified)::INTEGER AS verified
         FROM x402_payments WHERE submitter NOT IN (SELECT address FROM facilitators)
        GROUP BY submitter ORDER BY n DESC, submitter LIMIT 1`,
    );
    expect(relayer).toMatchObject({ verified: 0 });
    expect(relayer!.n).toBeGreaterThan(0);
    const countVerified = async () =>
      Number((await store.read('SELECT count(*) FILTER (verified)::INTEGER AS n FROM scored_payments'))[0]!.n);
    const verifiedBefore = await countVerified();
    // The shipped list (read once per process) gains the relayer, as a release with a newer
    // facilitators.csv would; every run refreshes the facilitators table from it.
    const shipped = loadFacilitators();
    shipped.push({ network: 'base', address: String(relayer!.submitter), facilitatorId: 'test-new-facilitator' });
    try {
      const run = await runScoring(store);
      expect(run.kind).toBe('full');
      expect(await countVerified()).toBe(verifiedBefore + Number(relayer!.n));
      await expectPaymentsMatchView(store);
      // What that run left equals a forced full run over the same inputs.
      const afterChange = await servingState(store);
      expect(afterChange.chain_scores).not.toEqual(afterIncrements.chain_scores);
      expect((await runScoring(store, { full: true })).kind).toBe('full');
      expect(await servingState(store)).toEqual(afterChange);
    } finally {
      shipped.pop();
    }
  });
});
