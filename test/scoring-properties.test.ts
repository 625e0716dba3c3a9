// Properties of scoring model v1 (sql/score), checked with fast-check over generated inputs: the
// macros on their own (ranges, grade boundaries, the v1 weights, the operator score's tail-risk
// rule, the neutral trust prior), then whole full runs over generated imported payments (ranges
// and grades of every served score, determinism, and more verified business never lowering an
// address's activity, reach or score).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { DuckDBInstance, timestampValue, type DuckDBConnection } from '@duckdb/node-api';
import { sqlFile } from '../pipeline/store/sql-files.ts';
import { readRows, type Row } from '../pipeline/store/rows.ts';
import { openStore, type Store } from '../pipeline/store/store.ts';
import { loadFacilitators } from '../pipeline/chain/facilitators.ts';
import { runScoring } from '../pipeline/score/run.ts';
import { tempDataDir } from './helpers/temp.ts';

/** The grade bands of the spec: A 90-100, B 75-89, C 50-74, D 25-49, F 0-24. */
function specGrade(score: number): string {
  return score >= 90 ? 'A' : score >= 75 ? 'B' : score >= 50 ? 'C' : score >= 25 ? 'D' : 'F';
}

const inRange = (value: unknown, low: number, high: number) => {
  expect(typeof value).toBe('number');
  expect(value).toBeGreaterThanOrEqual(low);
  expect(value).toBeLessThanOrEqual(high);
};

// SQL literals for generated values (never user input).
const int = (n: number) => `${n}::INTEGER`;
const dbl = (x: number) => `${x}::DOUBLE`;
const text = (s: string | null) => (s === null ? 'NULL::VARCHAR' : `'${s.replace(/'/g, "''")}'`);
const bool = (b: boolean | null) => (b === null ? 'NULL::BOOLEAN' : String(b));
const intList = (xs: number[]) => `[${xs.join(', ')}]::INTEGER[]`;

const count = fc.nat({ max: 1_000_000_000 });
const days = fc.nat({ max: 100_000 });
const score = fc.integer({ min: 0, max: 100 });
const scores = fc.array(score, { minLength: 1, maxLength: 25 });
/** A dimension as the macros produce it: 0-100 with one decimal. */
const dimension = fc.integer({ min: 0, max: 1000 }).map((tenths) => tenths / 10);

describe('scoring macros', () => {
  let instance: DuckDBInstance;
  let conn: DuckDBConnection;
  beforeAll(async () => {
    instance = await DuckDBInstance.create(':memory:');
    conn = await instance.connect();
    await conn.run(sqlFile('score/macros'));
  });
  afterAll(() => {
    conn?.closeSync();
    instance?.closeSync();
  });

  const select = async (columns: string): Promise<Row> => readRows(await conn.runAndReadAll(`SELECT ${columns}`))[0]!;
  const value = async (expression: string) => (await select(`${expression} AS v`)).v;
  const operatorScore = async (list: number[]) => Number(await value(`operator_score(${intList(list)})`));

  it('every dimension lies within 0-100, confidence within 0-1, for any non-negative inputs', async () => {
    const nullable = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: null });
    const inputs = fc.record({
      verified: count, candidate: count, activeDays: days, activeMonths: days,
      verifiedCounterparties: count, counterparties: count,
      quality: fc.constantFrom('real', 'placeholder', 'unknown', null),
      ens: nullable(fc.constant('agent.eth')), website: nullable(fc.constant('https://agent.example/')),
      reachable: nullable(fc.boolean()), github: nullable(fc.constant('https://github.com/o/r')), stars: nullable(count),
      services: fc.nat({ max: 50 }), x402: nullable(fc.boolean()), card: nullable(fc.boolean()),
      mcp: nullable(fc.boolean()), mentionsX402: nullable(fc.boolean()), active: nullable(fc.boolean()),
      verifiedAsPayee: count,
      // Clients of an agent: each counts 0-1 and rates 0-100 (what trust_dimension receives).
      clients: fc.array(fc.record({ weight: fc.double({ min: 0, max: 1, noNaN: true }), rating: fc.double({ min: 0, max: 100, noNaN: true }) }), { maxLength: 30 }),
      identityEvidence: fc.constantFrom(0, 0.25, 0.5, 1),
    });
    await fc.assert(
      fc.asyncProperty(inputs, async (i) => {
        const weight = i.clients.reduce((sum, c) => sum + c.weight, 0);
        const weightedSum = i.clients.reduce((sum, c) => sum + c.weight * c.rating, 0);
        const row = await select(`
          activity_dimension(${int(i.verified)}, ${int(i.candidate)}, ${int(i.activeDays)}, ${int(i.activeMonths)}) AS activity,
          reach_dimension(${int(i.verifiedCounterparties)}, ${int(i.counterparties)}) AS reach,
          identity_dimension(${text(i.quality)}, ${text(i.ens)}, ${text(i.website)}, ${bool(i.reachable)}, ${text(i.github)},
                             ${i.stars === null ? 'NULL::INTEGER' : int(i.stars)}) AS identity,
          capability_dimension(declared_capability(${int(i.services)}, ${bool(i.x402)}, ${bool(i.card)}, ${bool(i.mcp)},
                                                   ${bool(i.mentionsX402)}, ${bool(i.active)}), ${int(i.verifiedAsPayee)}) AS capability,
          trust_dimension(${dbl(weightedSum)}, ${dbl(weight)}) AS trust,
          score_confidence(${int(i.candidate)}, ${dbl(i.identityEvidence)}, ${dbl(weight)}) AS confidence`);
        for (const name of ['activity', 'reach', 'identity', 'capability', 'trust']) inRange(row[name], 0, 100);
        inRange(row.confidence, 0, 1);
        const v1 = await value(`v1_score(${row.identity}, ${row.activity}, ${row.capability}, ${row.reach}, ${row.trust})`);
        inRange(v1, 0, 100);
      }),
      { numRuns: 60 },
    );
  });

  it('v1_score lies within 0-100 for any dimensions within 0-100', async () => {
    await fc.assert(
      fc.asyncProperty(fc.tuple(dimension, dimension, dimension, dimension, dimension), async (d) => {
        inRange(await value(`v1_score(${d.map(dbl).join(', ')})`), 0, 100);
      }),
      { numRuns: 60 },
    );
  });

  it('grade_of follows the spec bands exactly for every score 0-100', async () => {
    const rows = readRows(await conn.runAndReadAll('SELECT s, grade_of(s) AS grade FROM range(0, 101) t(s) ORDER BY s'));
    expect(rows.map((r) => r.grade)).toEqual(Array.from({ length: 101 }, (_, s) => specGrade(s)));
    expect(await value('grade_of(NULL::INTEGER)')).toBeNull();
  });

  it('v1_score is round(0.2 identity + 0.2 activity + 0.3 capability + 0.05 reach + 0.25 trust), exactly', async () => {
    await fc.assert(
      fc.asyncProperty(fc.tuple(dimension, dimension, dimension, dimension, dimension), async ([i, a, c, r, t]) => {
        // In tenths the weighted sum is N / 200 with N an integer: round half up without floating point.
        const tenths = [i, a, c, r, t].map((x) => Math.round(x * 10));
        const n = 4 * tenths[0]! + 4 * tenths[1]! + 6 * tenths[2]! + tenths[3]! + 5 * tenths[4]!;
        expect(await value(`v1_score(${[i, a, c, r, t].map(dbl).join(', ')})`)).toBe(Math.floor((n + 100) / 200));
      }),
      { numRuns: 60 },
    );
    // Sums of exactly x.5 round up: in doubles these came out just below and rounded down.
    expect(await value('v1_score(0, 2.3, 37.8, 4, 50)')).toBe(25);
    expect(await value('v1_score(0, 0.4, 56.4, 0, 50)')).toBe(30);
  });

  it('the operator score lies between the lowest agent score and the rounded mean', async () => {
    await fc.assert(
      fc.asyncProperty(scores, async (list) => {
        const operator = await operatorScore(list);
        expect(operator).toBeGreaterThanOrEqual(Math.min(...list));
        expect(operator).toBeLessThanOrEqual(Math.round(list.reduce((a, b) => a + b, 0) / list.length));
      }),
      { numRuns: 60 },
    );
  });

  it('an agent scoring at most the operator score never raises it', async () => {
    await fc.assert(
      fc.asyncProperty(scores, fc.double({ min: 0, max: 1, noNaN: true }), async (list, fraction) => {
        const before = await operatorScore(list);
        const added = Math.floor(fraction * before);
        expect(await operatorScore([...list, added])).toBeLessThanOrEqual(before);
        expect(await operatorScore([...list, before])).toBeLessThanOrEqual(before);
      }),
      { numRuns: 60 },
    );
  });

  it('an agent scoring below every other never raises the operator score', async () => {
    await fc.assert(
      fc.asyncProperty(scores.filter((list) => Math.min(...list) > 0), fc.nat(), async (list, seed) => {
        const added = seed % Math.min(...list);
        expect(await operatorScore([...list, added])).toBeLessThanOrEqual(await operatorScore(list));
      }),
      { numRuns: 60 },
    );
  });

  it('feedback_rating: measurements give no rating at any value, binary tags are clamped to 0-100, others count within 0-100 only', async () => {
    // docs/scoring.md "Feedback": the rating of a value is value / 10^decimals, per tag1.
    const measurements = ['responseTime', 'blocktimeFreshness', 'revenues', 'tradingYield'];
    const binary = ['reachable', 'ownerVerified'];
    const others = ['starred', 'uptime', 'successRate', 'myCustomTag'];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...measurements, ...binary, ...others),
        fc.integer({ min: -20_000, max: 20_000 }),
        fc.nat({ max: 3 }),
        async (tag, raw, decimals) => {
          const rating = await value(`feedback_rating(${text(tag)}, ${raw}::HUGEINT, ${int(decimals)})`);
          const x = raw / 10 ** decimals;
          if (measurements.includes(tag)) expect(rating).toBeNull();
          else if (binary.includes(tag)) expect(rating).toBeCloseTo(Math.min(100, Math.max(0, x * 100)), 9);
          else if (x >= 0 && x <= 100) expect(rating).toBeCloseTo(x, 9);
          else expect(rating).toBeNull();
        },
      ),
      { numRuns: 80 },
    );
    // In range, a measurement is still no rating (values a rating tag would count).
    for (const tag of measurements) {
      for (const raw of [0, 5, 50, 100]) expect(await value(`feedback_rating(${text(tag)}, ${raw}::HUGEINT, 0)`), `${tag} ${raw}`).toBeNull();
    }
    // The edges of the 0-100 range count; a binary 1 is 100, anything above clamps.
    expect(await value(`feedback_rating('starred', 0::HUGEINT, 0)`)).toBe(0);
    expect(await value(`feedback_rating('starred', 100::HUGEINT, 0)`)).toBe(100);
    expect(await value(`feedback_rating('starred', 10001::HUGEINT, 2)`)).toBeNull();
    expect(await value(`feedback_rating('reachable', 1::HUGEINT, 0)`)).toBe(100);
    expect(await value(`feedback_rating('ownerVerified', 7::HUGEINT, 0)`)).toBe(100);
    expect(await value(`feedback_rating('reachable', -1::HUGEINT, 0)`)).toBe(0);
  });

  it('feedback_group sends each tag to the average of the reputation block the docs name', async () => {
    const groups: Record<string, string> = {
      uptime: 'uptime', reachable: 'uptime',
      successRate: 'activity', responseTime: 'activity', blocktimeFreshness: 'activity',
      starred: 'trust', ownerVerified: 'trust', revenues: 'trust', tradingYield: 'trust', myCustomTag: 'trust', '': 'trust',
    };
    for (const [tag, group] of Object.entries(groups)) expect(await value(`feedback_group(${text(tag)})`), tag).toBe(group);
  });

  it('with zero feedback weight trust is the neutral 50, whatever the ratings', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.double({ min: 0, max: 100, noNaN: true }), { maxLength: 20 }), async (ratings) => {
        // Every client weighs 0 (sybils, self-feedback): the sums trust_dimension receives.
        const weightedSum = ratings.reduce((sum, rating) => sum + 0 * rating, 0);
        expect(await value(`trust_dimension(${dbl(weightedSum)}, ${dbl(0)})`)).toBe(50);
      }),
      { numRuns: 20 },
    );
  });
});

// Whole runs over generated payments: imported transfers on one chain among a handful of
// addresses, facilitator-settled (verified) or not, spread over four months.
const chain = 'base';
const facilitator = loadFacilitators().find((f) => f.network === chain)!.address;
const unlisted = '0x5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e';
const party = (i: number) => `0x${'c0'.repeat(19)}${i.toString(16).padStart(2, '0')}`;
/** Addresses that have never paid or been paid before (the monotonicity property's newcomers). */
const newcomer = (i: number) => `0x${'e1'.repeat(18)}${i.toString(16).padStart(4, '0')}`;
const parties = 6;
const start = Date.UTC(2025, 0, 1) * 1000;

interface Payment {
  payer: string;
  payee: string;
  verified: boolean;
  /** Microseconds after the start. */
  at: number;
  value: bigint;
}

/** A payment between two different parties. */
const payment = fc
  .record({
    payer: fc.nat(parties - 1),
    // The payee is another party: the payer's index plus 1 to parties - 1, wrapped.
    offset: fc.nat(parties - 2),
    verified: fc.boolean(),
    at: fc.nat(120 * 86_400).map((seconds) => seconds * 1_000_000),
    value: fc.bigInt(1n, 50_000_000n),
  })
  .map(({ payer, offset, ...rest }): Payment => ({ payer: party(payer), payee: party((payer + 1 + offset) % parties), ...rest }));
const payments = fc.array(payment, { minLength: 1, maxLength: 40 });

const rawTables = ['imports', 'imported_transfers', 'known_addresses'];
const servingTables = ['chain_scores', 'agent_scores', 'feedback_weights', 'address_scores', 'address_feedback', 'run_stats', 'scoring_runs'];
// What a run materialises, without the run ids.
const snapshotQueries = {
  chain_scores: 'SELECT * EXCLUDE (run_id) FROM chain_scores ORDER BY chain, address',
  address_scores: 'SELECT * EXCLUDE (run_id) FROM address_scores ORDER BY address',
  address_feedback: 'SELECT * EXCLUDE (run_id) FROM address_feedback ORDER BY address',
  agent_scores: 'SELECT * EXCLUDE (run_id) FROM agent_scores ORDER BY chain, agent_id',
  feedback_weights: 'SELECT * EXCLUDE (run_id) FROM feedback_weights ORDER BY chain, agent_id, client_address',
};

describe('full scoring runs over generated payments', () => {
  let store: Store;
  let imported = 0;
  beforeAll(async () => {
    store = await openStore({ dataDir: tempDataDir('scoring-properties'), readConnections: 1 });
  });
  afterAll(() => store?.close());

  /** Empties the raw and serving tables: each generated case starts from nothing. */
  const clear = () => store.write(async (tx) => {
    for (const table of [...rawTables, ...servingTables]) await tx.run(`DELETE FROM ${table}`);
  });

  /** Imports the payments as one file: authorised transfers, submitted by a facilitator when verified. */
  const load = (list: Payment[]) =>
    store.write(async (tx) => {
      const id = `imp_prop${++imported}`;
      await tx.run(`INSERT INTO imports VALUES ($1, 'transfers', 'generated.csv', 'csv', $2, $2, 0, utc_now())`, [id, list.length]);
      await tx.append('imported_transfers', list.map((p, i) => [
        id, chain, BigInt(i + 1), timestampValue(BigInt(start + p.at)), `0x${imported.toString(16).padStart(8, '0')}${i.toString(16).padStart(56, '0')}`,
        0, '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913', p.payer, p.payee, p.value, p.verified ? facilitator : unlisted, true,
      ]));
    });

  const scoreAll = () => runScoring(store, { full: true, evmChain: chain });

  const snapshot = async () => {
    const state: Record<string, Row[]> = {};
    for (const [name, sql] of Object.entries(snapshotQueries)) state[name] = await store.read(sql);
    return state;
  };

  /** Every served score within 0-100 and graded by its band; confidences within 0-1. */
  const checkBounds = async (list: Payment[]) => {
    const chains = await store.read('SELECT * FROM chain_scores');
    const addresses = await store.read('SELECT * FROM address_scores');
    expect(addresses).toHaveLength(new Set(list.flatMap((p) => [p.payer, p.payee])).size);
    for (const row of chains) {
      inRange(row.score, 0, 100);
      expect(Number.isInteger(row.score)).toBe(true);
      expect(row.grade).toBe(specGrade(row.score as number));
      inRange(row.confidence, 0, 1);
      inRange(row.entity_confidence, 0, 1);
      for (const name of ['identity', 'activity', 'capability', 'reach', 'trust']) inRange(row[name], 0, 100);
    }
    for (const row of addresses) {
      inRange(row.score, 0, 100);
      expect(row.grade).toBe(specGrade(row.score as number));
    }
  };

  it('every served score lies within 0-100, every confidence within 0-1, and its grade is the score\'s band', async () => {
    await fc.assert(
      fc.asyncProperty(payments, async (list) => {
        await clear();
        await load(list);
        await scoreAll();
        await checkBounds(list);
      }),
      { numRuns: 12 },
    );
  });

  it('a second full run over the same payments, imported in another order, gives the same tables', async () => {
    await fc.assert(
      fc.asyncProperty(payments, fc.nat(), fc.boolean(), async (list, seed, reverse) => {
        await clear();
        await load(list);
        await scoreAll();
        const first = await snapshot();
        // The same payments as rows in another order (rotated, maybe reversed); the serving
        // tables keep the first run's state, which the second full run replaces. Runs bring their
        // payments table up to date from what was added since the run before; rows deleted behind
        // their back (no product operation does that) need the record of runs gone too, so the
        // next run rebuilds it.
        await store.write((tx) => tx.run('DELETE FROM imported_transfers; DELETE FROM scoring_runs'));
        const turn = seed % list.length;
        const again = [...list.slice(turn), ...list.slice(0, turn)];
        await load(reverse ? again.reverse() : again);
        await scoreAll();
        expect(await snapshot()).toEqual(first);
      }),
      { numRuns: 8 },
    );
  });

  it('verified payments to X from new counterparties never lower X\'s activity, reach or score', async () => {
    const x = party(0);
    const fresh = fc.array(payment, { minLength: 1, maxLength: 10 }).map((list) =>
      list.map((p, i) => ({ ...p, payer: newcomer(i), payee: x, verified: true })),
    );
    const dimensionsOf = async (address: string) => {
      const [row] = await store.read('SELECT activity, reach, score FROM chain_scores WHERE chain = $1 AND address = $2', [chain, address]);
      // No row: X had no payments yet, nothing to lower.
      return { activity: Number(row?.activity ?? 0), reach: Number(row?.reach ?? 0), score: Number(row?.score ?? 0) };
    };
    await fc.assert(
      fc.asyncProperty(payments, fresh, async (list, more) => {
        await clear();
        await load(list);
        await scoreAll();
        await checkBounds(list);
        const before = await dimensionsOf(x);
        await load(more);
        await scoreAll();
        await checkBounds([...list, ...more]);
        const after = await dimensionsOf(x);
        expect(after.activity).toBeGreaterThanOrEqual(before.activity);
        expect(after.reach).toBeGreaterThanOrEqual(before.reach);
        // Identity and trust stay put and capability only grows with verified receipts: so does the score.
        expect(after.score).toBeGreaterThanOrEqual(before.score);
      }),
      { numRuns: 12 },
    );
  });
});
