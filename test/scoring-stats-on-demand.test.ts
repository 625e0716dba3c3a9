// The stats an on-demand run writes describe what it serves: it brings every payment up to date
// and rescores the addresses it was asked about and those of the payments it added or removed
// (their chain rows keep their activity facts; the next run rescores them again from
// pending_addresses), so a chain first paid since the previous run is counted and named at once.
import { afterAll, expect, it } from 'vitest';
import { openStore, type Store } from '../pipeline/store/store.ts';
import { runScoring } from '../pipeline/score/run.ts';
import { tempDataDir } from './helpers/temp.ts';

const addr = (n: number) => '0x' + n.toString(16).padStart(40, '0');
const facilitator = '0x73b2b8df52fbe7c40fe78db52e3dffdd5db5ad07'; // a Base facilitator (pipeline/chain/facilitators.csv)
let store: Store;
afterAll(async () => store?.close());

// One verified EIP-3009 payment in its own block, and the chain's token cursor at that block.
const pay = (chain: string, block: number, payer: string, payee: string) => `
  INSERT INTO token_transfers VALUES ('${chain}', ${block}, '0xt${chain}${block}', 1, '0xtoken', '${payer}', '${payee}', 1000000);
  INSERT INTO authorizations_used VALUES ('${chain}', ${block}, '0xt${chain}${block}', 0, '0xtoken', '${payer}', '0xn${chain}${block}');
  INSERT INTO transaction_senders VALUES ('${chain}', ${block}, '0xt${chain}${block}', '${facilitator}', 'token');
  INSERT INTO chain_blocks VALUES ('${chain}', ${block}, 'h${block}', TIMESTAMP '2026-01-01' + INTERVAL ${block} HOUR, 'token');
  INSERT INTO ingest_cursors VALUES ('${chain}', 'token', ${block}, 'h${block}', utc_now());`;

const x402Body = async () =>
  JSON.parse(String((await store.read(`SELECT body::VARCHAR AS body FROM run_stats WHERE name = 'x402' ORDER BY run_id DESC LIMIT 1`))[0]!.body));

it('an on-demand run names in data_source the chains whose payments its stats count', async () => {
  store = await openStore({ dataDir: tempDataDir('stats-on-demand') });
  await store.write((tx) => tx.run(pay('base', 10, addr(1), addr(2))));
  expect((await runScoring(store)).kind).toBe('full');
  expect((await x402Body()).data_source).toBe('x402 candidate payments (EIP-3009 and Permit2) on base');
  // Asked about addr(1) only, the run rescores the devnet payment's addresses too, counts their
  // payment and names their chain.
  await store.write((tx) => tx.run(pay('devnet', 20, addr(3), addr(4))));
  expect((await runScoring(store, { addresses: [addr(1)] })).kind).toBe('addresses');
  let body = await x402Body();
  expect(body.total_transactions).toBe(2);
  expect(body.data_source).toBe('x402 candidate payments (EIP-3009 and Permit2) on base, devnet');
  // The next incremental run rescores them again, and the figures stay.
  expect((await runScoring(store)).kind).toBe('incremental');
  body = await x402Body();
  expect(body.total_transactions).toBe(2);
  expect(body.data_source).toBe('x402 candidate payments (EIP-3009 and Permit2) on base, devnet');
});

// One address of each classification on base (docs/scoring.md "Classification"), and two addresses
// asked about: stats count every served address, the legacy x402 figures only those with candidate
// payment activity, and total_addresses also the known addresses no run has scored yet.
it('the stats bodies count the served addresses by the documented rules, paid ones alone in the x402 body', async () => {
  const own = await openStore({ dataDir: tempDataDir('stats-rules') });
  try {
    const [hybrid, service, wallet, client, asked, waiting, shop, newcomer] = [addr(11), addr(12), addr(13), addr(14), addr(15), addr(16), addr(17), addr(18)] as const;
    const payers = [addr(21), addr(22), addr(23)] as const;
    let block = 100;
    const payment = (payer: string, payee: string, verified: boolean) => {
      block++;
      const sql = pay('base', block, payer, payee);
      return verified ? sql : sql.replace(`'${facilitator}'`, `'${payer}'`);
    };
    await own.write((tx) => tx.run([
      payment(hybrid, service, true), payment(payers[0], hybrid, true), // hybrid: sends and receives
      payment(payers[1], service, false), payment(payers[2], service, true), // service: receives only
      payment(wallet, shop, false), payment(wallet, service, false), // wallet: sends candidate payments only, as payers[1]; shop: a service paid candidate only
      payment(client, service, true), // agent: sends verified payments only (an x402 client), as payers[0] and payers[2]
    ].join('\n')));
    expect((await runScoring(own)).kind).toBe('full');
    await own.write((tx) => tx.run(`INSERT INTO known_addresses VALUES ('${asked}', 'evm', 'cli', utc_now()), ('${waiting}', 'evm', 'cli', utc_now())`));
    expect((await runScoring(own, { addresses: [asked] })).kind).toBe('addresses');

    const body = async (name: string) =>
      JSON.parse(String((await own.read(`SELECT body::VARCHAR AS body FROM run_stats WHERE name = $1 ORDER BY run_id DESC LIMIT 1`, [name]))[0]!.body));
    const rows = (await own.read(`SELECT address, score::INTEGER AS score, entity_type, candidate_as_payer AS payer, candidate_as_payee AS payee FROM address_scores`)) as
      { address: string; score: number; entity_type: string; payer: number; payee: number }[];
    const type = (a: string) => rows.find((r) => r.address === a)?.entity_type;
    expect([hybrid, service, shop, wallet, client, asked, ...payers].map(type)).toEqual(['hybrid', 'service', 'service', 'wallet', 'agent', 'unknown', 'agent', 'wallet', 'agent']);
    expect(type(waiting)).toBeUndefined();
    // The address asked about: nothing indexed, trust 50, everything else 0: round(0.25 × 50) = 13.
    expect(rows.find((r) => r.address === asked)!.score).toBe(13);
    const paid = rows.filter((r) => r.payer + r.payee > 0);
    expect(paid).toHaveLength(rows.length - 1);
    const grade = (score: number) => (score >= 90 ? 'A' : score >= 75 ? 'B' : score >= 50 ? 'C' : score >= 25 ? 'D' : 'F');
    const gradesOf = (list: typeof rows) => Object.fromEntries(['A', 'B', 'C', 'D', 'F'].map((g) => [g, list.filter((r) => grade(r.score) === g).length]));
    const scores = paid.map((r) => r.score);
    // Every paid address here scores above the one asked about, so it would show in the minimum.
    expect(Math.min(...scores)).toBeGreaterThan(13);

    const v2 = await body('v2');
    expect(v2.reputation).toEqual({
      total_addresses: rows.length + 1, // the waiting known address, not scored yet
      scored_addresses: rows.length,
      entity_distribution: { agent: 3, service: 2, wallet: 2, hybrid: 1, unknown: 1 },
      score_distribution: gradesOf(rows),
    });
    // Seven payments, four of them through the facilitator, each counted once (on its payer).
    expect(v2.payments).toEqual({
      addresses_with_candidate_payment_activity: paid.length,
      addresses_with_verified_payment_activity: paid.length - 3, // the wallets' and the shop's payments are candidate only
      total_candidate_transactions: 7,
      total_verified_transactions: 4,
      verification_status_summary: { candidate: 3, verified: 4 },
    });
    const x402 = await body('x402');
    expect(x402).toMatchObject({
      total_wallets: paid.length,
      distribution: gradesOf(paid),
      avg_score: Math.round((10 * scores.reduce((a, b) => a + b, 0)) / scores.length) / 10,
      max_score: Math.max(...scores),
      min_score: Math.min(...scores),
      wallets_as_payer: paid.filter((r) => r.payer > 0).length,
      wallets_as_payee: paid.filter((r) => r.payee > 0).length,
      wallets_both_roles: 1,
      total_transactions: 7,
      roles: { agent: 3, hybrid: 1, service: 2 },
      identified_agents: 0,
    });

    // A new verified payment to an address never seen, and an on-demand run for its payer only:
    // the run rescores its payee too, and the payment counts once, on its payer.
    await own.write((tx) => tx.run(payment(client, newcomer, true)));
    expect((await runScoring(own, { addresses: [client] })).kind).toBe('addresses');
    expect(await own.read(`SELECT address FROM address_scores WHERE address = $1`, [newcomer])).toEqual([{ address: newcomer }]);
    expect((await body('v2')).payments).toMatchObject({ total_candidate_transactions: 8, total_verified_transactions: 5 });
    expect(await body('x402')).toMatchObject({ total_transactions: 8 });
  } finally {
    await own.close();
  }
});

// The x402 body's least and greatest scores after an incremental run are over the addresses as
// they are now: the scores the run replaced no longer count (docs/scoring.md "Stats": a run adds
// the rows it wrote and subtracts those it replaced).
it('after an incremental run, min_score and max_score are those of the addresses as now scored', async () => {
  const own = await openStore({ dataDir: tempDataDir('stats-incremental') });
  try {
    const [payer, first, second, third] = [addr(31), addr(32), addr(33), addr(34)] as const;
    await own.write((tx) => tx.run(pay('base', 10, payer, first)));
    expect((await runScoring(own)).kind).toBe('full');
    const scores = async () => (await own.read(`SELECT address, score FROM address_scores ORDER BY address`)).map((r) => Number(r.score));
    const before = await scores();
    // The payer of one verified payment scores below its payee (which has verified receipts: capability).
    expect(before[0]).toBeLessThan(before[1]!);
    await own.write((tx) => tx.run(pay('base', 11, payer, second) + pay('base', 12, payer, third) + pay('base', 13, payer, first)));
    expect((await runScoring(own)).kind).toBe('incremental');
    const after = await scores();
    // The payer's score rose above what it was: the old least score is no served address's.
    expect(after[0]).toBeGreaterThan(before[0]!);
    expect(after).not.toContain(before[0]);
    const x402 = JSON.parse(String((await own.read(`SELECT body::VARCHAR AS body FROM run_stats WHERE name = 'x402' ORDER BY run_id DESC LIMIT 1`))[0]!.body));
    expect(x402).toMatchObject({ total_wallets: 4, min_score: Math.min(...after), max_score: Math.max(...after), total_transactions: 4 });
  } finally {
    await own.close();
  }
});

// The scoring_runs row of each run (pipeline/score/run.ts): its id is one past the newest run's,
// even when that run wrote no chain row (the id is past max(run_id) of both); address_count is
// what the stat cells count (0, not null, before anything is served); rescored_count the address
// rows this run wrote, not every served one. A run that fails takes the model's macros with it:
// the next run on the same store creates them again.
it('each run records its own id and counts, also after a run that rescored nothing or failed', async () => {
  const own = await openStore({ dataDir: tempDataDir('stats-runs') });
  try {
    const recorded = async () =>
      (await own.read(`SELECT run_id, kind, address_count, rescored_count FROM scoring_runs ORDER BY run_id`))
        .map((r) => [r.run_id, r.kind, r.address_count, r.rescored_count]);
    // The first run fails once the macros were created: it leaves nothing behind.
    await expect(runScoring(own, { onStep: (name) => { if (name === 'macros') throw new Error('stopped'); } })).rejects.toThrow('stopped');
    expect(await recorded()).toEqual([]);
    await runScoring(own); // nothing to score
    await own.write((tx) => tx.run(pay('base', 10, addr(41), addr(42))));
    await runScoring(own);
    await runScoring(own); // nothing new: no row rewritten, the chain rows keep run 2's id
    await own.write((tx) => tx.run(pay('base', 11, addr(43), addr(42))));
    await runScoring(own);
    expect(await recorded()).toEqual([
      [1, 'full', 0, 0],
      [2, 'incremental', 2, 2],
      [3, 'incremental', 2, 0],
      [4, 'incremental', 3, 2],
    ]);
  } finally {
    await own.close();
  }
});
