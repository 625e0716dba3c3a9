// Rules of scoring model v1 that a devnet history rarely isolates (docs/scoring.md, "Feedback
// weight" and "Classification"), on a handful of rows written as ingestion and imports leave them:
//   - an agent rated by its own payment wallet (agentWallet, not its owner): self feedback, weight
//     0, so the agent's trust is as if that entry did not exist;
//   - the owner of that agent, which has no payments itself (the agent is paid at its wallet): an
//     identified 'wallet', not an ERC-8004 agent;
//   - a known x402 facilitator, scored on demand: identified (is_known) as a known facilitator.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../pipeline/store/store.ts';
import { loadFacilitators } from '../pipeline/chain/facilitators.ts';
import { runScoring } from '../pipeline/score/run.ts';
import { tempDataDir } from './helpers/temp.ts';

const addr = (tag: string) => `0x${tag.repeat(40 / tag.length)}`;
const owner = addr('0a');
const wallet = addr('0b');
const customer = addr('0c');
const registry = addr('8e');
const reputationRegistry = addr('8f');
const usdc = '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913';
/** A signer of the shipped facilitator list (pipeline/chain/facilitators.csv) on base. */
const facilitator = loadFacilitators().find((f) => f.network === 'base')!.address;
const agentId = 7;

/**
 * Agent 7 on base: registered by `owner`, paid at its agentWallet `wallet`. `customer` paid the
 * wallet twice through the facilitator and rates the agent 80; the owner and the wallet rate it 100.
 */
async function writeHistory(store: Store): Promise<void> {
  await store.write(async (tx) => {
    await tx.run(`INSERT INTO imported_agents VALUES ('imp_agents', 'base', $1, $2, $3, 'https://seven.example/agent.json', 100, NULL, NULL)`, [registry, String(agentId), owner]);
    await tx.run(`INSERT INTO agent_metadata VALUES ('base', 200, $1, 0, $2, $3, 'agentWallet', $4)`, [`0x${'c7'.repeat(32)}`, registry, String(agentId), `0x${'0'.repeat(24)}${wallet.slice(2)}`]);
    for (const [i, day] of [[1, 3], [2, 4]] as const) {
      await tx.run(
        `INSERT INTO imported_transfers VALUES ('imp_transfers', 'base', $1, TIMESTAMP '2025-11-01 10:00:00' + to_days($2::INTEGER), $3, 0, $4, $5, $6, 2500000, $7, true)`,
        [1000 + i, day, `0x${String(i).repeat(64)}`, usdc, customer, wallet, facilitator],
      );
    }
    for (const [i, client, value] of [[1, customer, 80], [2, owner, 100], [3, wallet, 100]] as const) {
      await tx.run(
        `INSERT INTO imported_feedback VALUES ('imp_feedback', 'base', $1, $2, $3, 1, $4, 0, 'starred', '', TIMESTAMP '2025-11-10 00:00:00' + to_hours($5::INTEGER), false)`,
        [reputationRegistry, String(agentId), client, value, i],
      );
    }
  });
}

describe('feedback weight and classification rules', () => {
  let store: Store;
  beforeAll(async () => {
    store = await openStore({ dataDir: tempDataDir('scoring-classification'), readConnections: 1 });
    await writeHistory(store);
    expect(await runScoring(store, { evmChain: 'base' })).toMatchObject({ kind: 'full' });
  });
  afterAll(() => store?.close());

  const classification = async (address: string) => {
    const rows = await store.read(
      `SELECT chain, entity_type, entity_confidence, is_known, is_known_erc8004_agent, reasons FROM chain_scores WHERE address = $1`,
      [address],
    );
    expect(rows).toHaveLength(1);
    return rows[0]!;
  };
  const agentTrust = async () =>
    (await store.read('SELECT trust, feedback_weight FROM agent_scores WHERE chain = $1 AND agent_id = $2', ['base', agentId]))[0];

  it("the agent's own payment wallet rating it is self feedback: weight 0, trust as without the entry", async () => {
    const weights = await store.read(
      `SELECT client_address, feedback_count, value_avg, weight, weight_reason FROM feedback_weights
        WHERE chain = 'base' AND agent_id = $1 ORDER BY client_address`,
      [agentId],
    );
    expect(weights).toEqual([
      { client_address: owner, feedback_count: 1, value_avg: 100, weight: 0, weight_reason: 'self_feedback' },
      { client_address: wallet, feedback_count: 1, value_avg: 100, weight: 0, weight_reason: 'self_feedback' },
      { client_address: customer, feedback_count: 1, value_avg: 80, weight: 1, weight_reason: 'paid_verified' },
    ]);
    // trust = (2 × 50 + Σ weight × value_avg) / (2 + Σ weight): only the customer counts.
    const withEntry = await agentTrust();
    expect(withEntry).toEqual({ trust: (2 * 50 + 80) / (2 + 1), feedback_weight: 1 });
    // The wallet's address takes the agent's dimensions.
    expect((await store.read('SELECT trust FROM chain_scores WHERE address = $1', [wallet]))[0]!.trust).toBe(withEntry!.trust);

    // The same history without the wallet's entry (a later import marks it revoked), scored again.
    await store.write((tx) => tx.run(`UPDATE imported_feedback SET revoked = true WHERE client_address = $1`, [wallet]));
    expect(await runScoring(store, { full: true, evmChain: 'base' })).toMatchObject({ kind: 'full' });
    expect(await store.read(`SELECT client_address FROM feedback_weights WHERE client_address = $1`, [wallet])).toEqual([]);
    expect(await agentTrust()).toEqual(withEntry);
  });

  it("an owner without payments whose agent is paid at its own wallet is a known 'wallet', not an agent", async () => {
    expect(await classification(owner)).toEqual({
      chain: 'base',
      entity_type: 'wallet',
      entity_confidence: 0.5,
      is_known: true,
      is_known_erc8004_agent: false,
      reasons: ['owns_erc8004_agents', 'no_payment_activity'],
    });
    // Its agent's wallet, for contrast: the agent.
    expect(await classification(wallet)).toMatchObject({ entity_type: 'agent', is_known: true, is_known_erc8004_agent: true });
  });

  it('a known facilitator scored on demand is known, with the known_facilitator reason', async () => {
    expect(await runScoring(store, { addresses: [facilitator], evmChain: 'base' })).toMatchObject({ kind: 'addresses' });
    expect(await classification(facilitator)).toEqual({
      chain: 'base',
      entity_type: 'unknown',
      entity_confidence: 0,
      is_known: true,
      is_known_erc8004_agent: false,
      reasons: ['known_facilitator', 'no_indexed_activity'],
    });
  });
});

// docs/scoring.md "Score, grade, confidence": a payment address of registered agents takes the
// dimensions, score and confidence of its best agent on that chain: highest score, then lowest
// agent id. No payments: identity alone separates the agents (registered 30, a real registration
// file 25, a placeholder 5), trust is the neutral 50, everything else 0.
describe('the best agent of a payment address', () => {
  let store: Store;
  const tied = addr('1a'); // agents 8 and 9: the same score, their files of different kinds
  const mixed = addr('1b'); // agents 11 (placeholder file) and 12 (real file)
  const files: [number, string, string, string][] = [
    [8, tied, 'ipfs', 'real'], [9, tied, 'https', 'real'], [11, mixed, 'https', 'placeholder'], [12, mixed, 'ipfs', 'real'],
  ];
  beforeAll(async () => {
    store = await openStore({ dataDir: tempDataDir('scoring-best-agent'), readConnections: 1 });
    await store.write(async (tx) => {
      for (const [id, holder, kind, quality] of files) {
        const uri = `https://agent${id}.example/agent.json`;
        await tx.run(`INSERT INTO imported_agents VALUES ('imp_agents', 'base', $1, $2, $3, $4, 100, NULL, NULL)`, [registry, String(id), holder, uri]);
        await tx.run(
          `INSERT INTO registration_files (chain, registry, agent_id, agent_uri, fetched_at, fetch_status, metadata_kind, name, description, services, metadata_quality)
           VALUES ('base', $1, $2, $3, TIMESTAMP '2025-11-01 00:00:00', 'ok', $4, $5, NULL, '[]'::JSON, $6)`,
          [registry, String(id), uri, kind, `Agent ${id}`, quality],
        );
      }
    });
    expect(await runScoring(store, { evmChain: 'base' })).toMatchObject({ kind: 'full' });
  });
  afterAll(() => store?.close());

  const chainRow = async (address: string) =>
    (await store.read(`SELECT score, confidence, identity, metadata_kind, metadata_quality, agent_count FROM chain_scores WHERE chain = 'base' AND address = $1`, [address]))[0];

  it('a tie goes to the lowest agent id', async () => {
    // Both: identity 30 + 25 = 55; score = round(0.2 × 55 + 0.25 × 50) = round(23.5) = 24 (half up).
    const agents = await store.read(`SELECT agent_id::INTEGER AS id, score, identity FROM agent_scores WHERE owner = $1 ORDER BY agent_id`, [tied]);
    expect(agents).toEqual([{ id: 8, score: 24, identity: 55 }, { id: 9, score: 24, identity: 55 }]);
    expect(await chainRow(tied)).toMatchObject({ score: 24, identity: 55, metadata_kind: 'ipfs', metadata_quality: 'real', agent_count: 2 });
  });

  it('the highest score wins over a lower agent id', async () => {
    // Agent 11: identity 30 + 5 = 35, score round(7 + 12.5) = 20; agent 12: 24 as above.
    const agents = await store.read(`SELECT agent_id::INTEGER AS id, score, identity FROM agent_scores WHERE owner = $1 ORDER BY agent_id`, [mixed]);
    expect(agents).toEqual([{ id: 11, score: 20, identity: 35 }, { id: 12, score: 24, identity: 55 }]);
    // Confidence of the real file: 0.25 × identity evidence 1 (no payments, no feedback weight).
    expect(await chainRow(mixed)).toMatchObject({ score: 24, identity: 55, confidence: 0.25, metadata_kind: 'ipfs', metadata_quality: 'real', agent_count: 2 });
  });

  it("the run's agent stats count the four agents by file quality and by grade", async () => {
    const body = async (name: string) =>
      JSON.parse(String((await store.read(`SELECT body::VARCHAR AS body FROM run_stats WHERE name = $1 ORDER BY run_id DESC LIMIT 1`, [name]))[0]!.body));
    expect((await body('v2')).erc8004).toEqual({ known_agents: 4, by_chain: { base: 4 }, metadata_quality_distribution: { real: 3, placeholder: 1, unknown: 0 } });
    // Scores 24, 24, 20, 24: all F (0-24); the mean is 23.
    expect(await body('erc8004')).toMatchObject({
      total_agents: 4, average_score: 23, max_score: 24, min_score: 20,
      grade_distribution: { A: { count: 0, pct: 0 }, B: { count: 0, pct: 0 }, C: { count: 0, pct: 0 }, D: { count: 0, pct: 0 }, F: { count: 4, pct: 100 } },
    });
  });
});

// docs/scoring.md "What is scored" / spec 2.7: an address without agents takes its best chain's
// score; address_scores (the exported `scores`, the legacy browse and the stats read it) keeps its
// chains best first, the entity type of its best chain, payments and volume summed over chains,
// first and last payment over all of them, and counterparties, days and months counted once.
describe('an address on two chains', () => {
  let store: Store;
  const x = addr('2a');
  const [q1, p1, p2, p3] = [addr('2b'), addr('2c'), addr('2d'), addr('2e')];
  const polygonFacilitator = loadFacilitators().find((f) => f.network === 'polygon')!.address;
  // [chain, payer, payee, verified, time, USDC]
  const payments: [string, string, string, boolean, string, number][] = [
    ['base', x, q1, false, '2025-09-15 12:00:00', 5], // base: X pays and is paid (hybrid)
    ['base', p1, x, true, '2025-10-01 12:00:00', 1],
    ['base', p1, q1, false, '2025-10-05 12:00:00', 4], // p1 pays a second address on base, candidate only
    ['polygon', p1, x, true, '2025-10-01 13:00:00', 1], // polygon: X is paid only (service), more and for longer
    ['polygon', p2, x, true, '2025-10-02 12:00:00', 2],
    ['polygon', p3, x, true, '2025-11-03 12:00:00', 3],
  ];
  beforeAll(async () => {
    store = await openStore({ dataDir: tempDataDir('scoring-two-chains'), readConnections: 1 });
    await store.write(async (tx) => {
      for (const [i, [chain, payer, payee, verified, at, value]] of payments.entries()) {
        await tx.run(
          `INSERT INTO imported_transfers VALUES ('imp_chains', $1, $2, $3::TIMESTAMP, $4, 0, $5, $6, $7, $8, $9, true)`,
          [chain, 3000 + i, at, `0x${(0xa0 + i).toString(16).repeat(32)}`, usdc, payer, payee, value * 1_000_000,
           verified ? (chain === 'base' ? facilitator : polygonFacilitator) : payer],
        );
      }
    });
    expect(await runScoring(store, { evmChain: 'base' })).toMatchObject({ kind: 'full' });
  });
  afterAll(() => store?.close());

  it("takes the best chain's score and entity type, sums its payments and counts each counterparty, day and month once", async () => {
    const chains = await store.read(
      `SELECT chain, score, entity_type, activity, capability, reach FROM chain_scores WHERE address = $1 ORDER BY chain`, [x]);
    // Polygon by the formulas: 3 verified payments received from 3 counterparties on 3 days in 2 months.
    const saturate = (v: number, n: number) => Math.min(1, Math.log(1 + v) / Math.log(1 + n));
    const tenth = (v: number) => Math.round(v * 10) / 10;
    const activity = tenth(100 * (0.35 * saturate(3, 200) + 0.15 * saturate(3, 500) + 0.25 * (3 / 60) + 0.25 * (2 / 6)));
    const capability = tenth(40 * saturate(3, 100));
    const reach = tenth(100 * (0.7 * saturate(3, 50) + 0.3 * saturate(3, 100)));
    const polygonScore = Math.round(0.2 * activity + 0.3 * capability + 0.05 * reach + 0.25 * 50);
    expect(chains[1]).toEqual({ chain: 'polygon', score: polygonScore, entity_type: 'service', activity, capability, reach });
    expect(chains[0]).toMatchObject({ chain: 'base', entity_type: 'hybrid' });
    expect(chains[0]!.score).toBeLessThan(polygonScore);

    const [top] = await store.read(
      `SELECT score, grade, chains, operator_score, agent_count, entity_type, candidate_as_payer, candidate_as_payee,
              verified_as_payer, verified_as_payee, volume_usdc, counterparties_count, active_days, active_months,
              strftime(first_candidate_tx_at, '%Y-%m-%d') AS first, strftime(last_candidate_tx_at, '%Y-%m-%d') AS last
         FROM address_scores WHERE address = $1`, [x]);
    expect(top).toEqual({
      score: polygonScore, grade: polygonScore >= 25 ? 'D' : 'F', chains: ['polygon', 'base'], operator_score: null, agent_count: 0,
      entity_type: 'service',
      candidate_as_payer: 1, candidate_as_payee: 4, verified_as_payer: 0, verified_as_payee: 4,
      volume_usdc: 5 + 1 + 1 + 2 + 3,
      counterparties_count: 4, // q1, p1 (on both chains), p2, p3
      active_days: 4, // 09-15, 10-01 (on both chains), 10-02, 11-03
      active_months: 3,
      first: '2025-09-15', last: '2025-11-03',
    });
  });

  it('classifies each party on base by the first rule that holds, with the documented confidence', async () => {
    const saturate = (v: number, n: number) => Math.min(1, Math.log(1 + v) / Math.log(1 + n));
    const hundredth = (v: number) => Math.round(v * 100) / 100;
    const rows = await store.read(
      `SELECT address, entity_type, entity_confidence, is_known, reasons FROM chain_scores WHERE chain = 'base' ORDER BY address`);
    expect(rows).toEqual([
      // X both sends and receives candidate payments.
      { address: x, entity_type: 'hybrid', entity_confidence: 0.8, is_known: false,
        reasons: ['sends_candidate_payments', 'receives_candidate_payments', 'receives_verified_payments'] },
      // q1 receives candidate payments from two counterparties (X, p1): 0.5 + 0.4 saturate(2, 20).
      { address: q1, entity_type: 'service', entity_confidence: hundredth(0.5 + 0.4 * saturate(2, 20)), is_known: false,
        reasons: ['receives_candidate_payments'] },
      // p1 only sends, one of its two payments verified (an x402 client): 0.6 + 0.3 saturate(verified sent 1, 50).
      { address: p1, entity_type: 'agent', entity_confidence: hundredth(0.6 + 0.3 * saturate(1, 50)), is_known: false,
        reasons: ['sends_candidate_payments', 'sends_verified_payments'] },
    ]);
  });
});

// docs/scoring.md "Feedback" and "Feedback weight": a client's entries that carry no rating (a
// measurement such as responseTime) do not count toward its weight, and a client with none has
// no weight at all; the block's feedback_count still counts every live entry.
describe('feedback entries without a rating', () => {
  let store: Store;
  const operator = addr('3a');
  const [measurer, rater] = [addr('3b'), addr('3c')];
  const id = 5;
  beforeAll(async () => {
    store = await openStore({ dataDir: tempDataDir('scoring-unrated'), readConnections: 1 });
    await store.write(async (tx) => {
      await tx.run(`INSERT INTO imported_agents VALUES ('imp_agents', 'base', $1, $2, $3, 'https://five.example/agent.json', 100, NULL, NULL)`, [registry, String(id), operator]);
      for (const [i, client] of [measurer, rater].entries()) {
        await tx.run(
          `INSERT INTO imported_transfers VALUES ('imp_transfers', 'base', $1, TIMESTAMP '2025-11-01 10:00:00', $2, 0, $3, $4, $5, 2500000, $6, true)`,
          [2000 + i, `0x${String(i + 5).repeat(64)}`, usdc, client, operator, facilitator],
        );
      }
      // [client, index, tag, value]: the measurer only measures; the rater rates 80 and measures too.
      const entries: [string, number, string, number][] = [[measurer, 1, 'responseTime', 250], [rater, 1, 'starred', 80], [rater, 2, 'responseTime', 90]];
      for (const [client, index, tag, value] of entries) {
        await tx.run(
          `INSERT INTO imported_feedback VALUES ('imp_feedback', 'base', $1, $2, $3, $4, $5, 0, $6, '', TIMESTAMP '2025-11-10 00:00:00', false)`,
          [reputationRegistry, String(id), client, index, value, tag],
        );
      }
    });
    expect(await runScoring(store, { evmChain: 'base' })).toMatchObject({ kind: 'full' });
  });
  afterAll(() => store?.close());

  it('count toward no weight, and a client with only such entries has none', async () => {
    // Both clients paid the agent through the facilitator: paid_verified, weight 1, were they rating.
    expect(await store.read(`SELECT client_address, feedback_count, value_avg, weight, weight_reason FROM feedback_weights WHERE agent_id = $1`, [id]))
      .toEqual([{ client_address: rater, feedback_count: 1, value_avg: 80, weight: 1, weight_reason: 'paid_verified' }]);
    // trust = (2 × 50 + 1 × 80) / (2 + 1) = 60.
    expect((await store.read(`SELECT trust, feedback_weight, weighted_feedback_avg, feedback_count, client_count FROM agent_scores WHERE agent_id = $1`, [id]))[0])
      .toEqual({ trust: 60, feedback_weight: 1, weighted_feedback_avg: 80, feedback_count: 3, client_count: 2 });
    // The block: every live entry counted; responseTime feeds activity_avg but carries no rating.
    expect((await store.read(`SELECT feedback_count, client_count, trust_avg, uptime_avg, activity_avg FROM chain_scores WHERE address = $1`, [operator]))[0])
      .toEqual({ feedback_count: 3, client_count: 2, trust_avg: 80, uptime_avg: null, activity_avg: null });
  });
});
