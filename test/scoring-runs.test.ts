// Scoring runs over a simulated devnet history (agents, x402 payments, honest and sybil feedback):
// incremental runs give exactly what a full run gives, a sybil swarm cannot lift a score, the
// operator score follows its tail-risk rule, and on-demand scoring of an unknown address.
import path from 'node:path';
import { readFileSync } from 'node:fs';
import bs58 from 'bs58';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevnet, type Devnet } from '../devnet/index.ts';
import { simulate, type SimulationTruth } from '../devnet/simulate.ts';
import type { RegistrationServer } from '../devnet/registration-server.ts';
import { loadConfig, type ChainConfig } from '../pipeline/config.ts';
import { silentLogger } from '../pipeline/log.ts';
import { openStore, type Store } from '../pipeline/store/store.ts';
import { ingestChain } from '../pipeline/ingest/ingest-chain.ts';
import { fetchMetadataJob } from '../pipeline/metadata/fetch-metadata-job.ts';
import { runScoring } from '../pipeline/score/run.ts';
import { sqlFile } from '../pipeline/store/sql-files.ts';
import { importFile } from '../pipeline/import/import-file.ts';
import { runHandler } from '../jobs/handlers.ts';
import { tempDataDir } from './helpers/temp.ts';
import { expectPaymentsMatchView, servingState } from './helpers/scoring-invariants.ts';

describe('scoring runs over a simulated history', () => {
  let devnet: Devnet;
  let truth: SimulationTruth;
  let registrations: RegistrationServer;
  let chain: ChainConfig;
  let incremental: Store;
  let full: Store;
  const unknownAddress = '0x00000000000000000000000000000000000c0ffe';
  const wrongPayee = '0x000000000000000000000000000000000000beef';
  const onDevnet = { evmChain: 'devnet' };

  // Both stores must fetch the same files: a generous timeout, so a loaded machine cannot turn one
  // of their fetches into a timeout and the two paths into different inputs.
  const metadata = (store: Store) =>
    fetchMetadataJob({ store, log: silentLogger }, { allowPrivateAddresses: true, ca: registrations.caPem, concurrency: 4, timeoutMs: 60_000 });

  beforeAll(async () => {
    devnet = await startDevnet({ port: 0 });
    const simulation = await simulate(devnet, { agents: 40, payments: 600, seed: 'scoring-runs' });
    truth = simulation.truth;
    registrations = simulation.registrationServer;
    chain = loadConfig({ RPC_URL_DEVNET: devnet.rpcUrl }).chains.devnet!;
    const head = truth.blocks.last;
    const middle = Math.floor((truth.blocks.first + truth.blocks.last) / 2);

    // Path 2: everything at once, one full run. A third of the later half's payments are also
    // imported from a file (as a data team might have before the chain was indexed); in some of
    // those rows the file names the wrong payee, an address nothing else pays, which loses its
    // only payments once the chain's rows replace the file's. One row names the wrong payer and
    // payee: a client paying the wallet of an agent it rated and never paid, so the file raises
    // that client's weight until the chain's row replaces it.
    full = await openStore({ dataDir: tempDataDir('scoring-full') });
    await ingestChain({ store: full, chain, log: silentLogger });
    await metadata(full);
    const [wrongPayer] = await full.read(
      `SELECT p.tx_hash, p.log_index, c.client_address, c.wallet
         FROM (SELECT tx_hash, log_index FROM x402_payments WHERE block_number > ${middle} AND log_index % 3 = 0 ORDER BY tx_hash LIMIT 1) p,
              (SELECT f.client_address, '0x' || right(lower(m.metadata_value), 40) AS wallet
                 FROM feedback f JOIN agent_metadata m ON m.chain = f.chain AND m.agent_id = f.agent_id AND m.metadata_key = 'agentWallet'
                WHERE m.block_number <= ${middle} AND f.block_number <= ${middle}
                  AND f.tag1 NOT IN ('responseTime', 'blocktimeFreshness', 'revenues', 'tradingYield')
                  AND NOT EXISTS (SELECT 1 FROM x402_payments q WHERE q.payer = f.client_address AND q.payee = '0x' || right(lower(m.metadata_value), 40))
                ORDER BY f.client_address LIMIT 1) c`,
    );
    expect(wrongPayer).toBeDefined();
    const importedPayments = path.join(tempDataDir('scoring-import'), 'payments.csv');
    await full.write((tx) =>
      tx.run(
        `COPY (SELECT chain, block_number, strftime(block_time, '%Y-%m-%dT%H:%M:%SZ') AS block_time, tx_hash, log_index, token,
                      CASE WHEN tx_hash = $1 AND log_index = $2 THEN $3 ELSE payer END AS from_address,
                      CASE WHEN tx_hash = $1 AND log_index = $2 THEN $4 WHEN log_index % 2 = 0 THEN payee ELSE '${wrongPayee}' END AS to_address,
                      value, submitter AS tx_sender, true AS authorized
                 FROM x402_payments WHERE block_number > ${middle} AND log_index % 3 = 0)
         TO '${importedPayments}' (HEADER)`,
        [String(wrongPayer!.tx_hash), Number(wrongPayer!.log_index), String(wrongPayer!.client_address), String(wrongPayer!.wallet)],
      ),
    );
    const importPayments = async (store: Store) => {
      const report = await importFile({ store, log: silentLogger }, { file: importedPayments, kind: 'transfers', onBadRows: 'refuse' });
      expect(report.rowsLoaded).toBeGreaterThan(0);
    };
    await importPayments(full);
    await full.write((tx) => tx.run(`INSERT INTO known_addresses VALUES ($1, 'evm', 'cli', utc_now())`, [unknownAddress]));
    expect((await runScoring(full, onDevnet)).kind).toBe('full');
    await expectPaymentsMatchView(full);

    // Path 1: half the history, a full run; the imported payments, then the rest of the chain
    // (whose rows replace the imported ones), a run on demand first (it brings the payments up to
    // date, taking the wrong payer's and payee's payments away, but rescores only what it was
    // asked), then incremental runs.
    incremental = await openStore({ dataDir: tempDataDir('scoring-incremental') });
    await ingestChain({ store: incremental, chain: { ...chain, confirmations: head - middle }, log: silentLogger });
    await metadata(incremental);
    expect((await runScoring(incremental, onDevnet)).kind).toBe('full');
    await importPayments(incremental);
    expect((await runScoring(incremental, onDevnet)).kind).toBe('incremental');
    await expectPaymentsMatchView(incremental);
    expect((await incremental.read(`SELECT count(*)::INTEGER AS n FROM scored_payments WHERE origin = 'import'`))[0]!.n).toBeGreaterThan(0);
    expect(await incremental.read('SELECT address FROM address_scores WHERE address = $1', [wrongPayee])).toHaveLength(1);
    const [paidWeight] = await incremental.read(`SELECT weight_reason FROM feedback_weights WHERE client_address = $1 AND weight_reason LIKE 'paid_%'`, [String(wrongPayer!.client_address)]);
    expect(paidWeight).toBeDefined();
    await ingestChain({ store: incremental, chain, log: silentLogger });
    await metadata(incremental);
    expect((await runScoring(incremental, { ...onDevnet, addresses: [unknownAddress] })).kind).toBe('addresses');
    await expectPaymentsMatchView(incremental);
    expect((await runScoring(incremental, onDevnet)).kind).toBe('incremental');
    await expectPaymentsMatchView(incremental);
    expect((await runScoring(incremental, onDevnet)).kind).toBe('incremental');
    await expectPaymentsMatchView(incremental);
  }, 240_000);

  afterAll(async () => {
    await incremental?.close();
    await full?.close();
    await registrations?.close();
    await devnet?.close();
  });

  it('incremental runs materialise exactly what one full run does', async () => {
    const expected = await servingState(full);
    expect(expected.agent_scores).toHaveLength(truth.agents.length);
    // Registration files were fetched (identity and capability have real input to carry).
    const [files] = await full.read(`SELECT count(*) FILTER (metadata_quality = 'real')::INTEGER AS real FROM agent_scores`);
    expect(files!.real).toBeGreaterThan(0);
    expect(await servingState(incremental)).toEqual(expected);
  });

  it('a second incremental run with no new input rescores nothing and changes nothing', async () => {
    const before = await servingState(incremental);
    const run = await runScoring(incremental, onDevnet);
    expect(run).toMatchObject({ kind: 'incremental', rescoredCount: 0 });
    expect(await servingState(incremental)).toEqual(before);
  });

  it('an address asked about before it was indexed gets a minimal entry', async () => {
    const [row] = await incremental.read('SELECT chain, entity_type, reasons, candidate_as_payer, score FROM chain_scores WHERE address = $1', [unknownAddress]);
    expect(row).toMatchObject({ chain: 'devnet', entity_type: 'unknown', reasons: ['no_indexed_activity'], candidate_as_payer: 0 });
  });

  it('sybil clients carry no weight: removing their feedback changes no score', async () => {
    const sybils = new Set(truth.feedback.filter((f) => f.sybil).map((f) => f.client));
    expect(sybils.size).toBeGreaterThan(0);
    const weights = await full.read('SELECT client_address, weight, weight_reason FROM feedback_weights');
    const sybilWeights = weights.filter((w) => sybils.has(w.client_address as `0x${string}`));
    expect(sybilWeights.length).toBeGreaterThan(0);
    for (const w of sybilWeights) expect(w).toMatchObject({ weight: 0, weight_reason: 'no_payment_history' });
    // Honest clients paid the agent: full weight.
    expect(weights.some((w) => w.weight_reason === 'paid_verified' && w.weight === 1)).toBe(true);

    const scores = 'SELECT chain, agent_id, score, trust FROM agent_scores ORDER BY chain, agent_id';
    const withSwarm = await full.read(scores);
    const list = [...sybils].map((a) => `'${a}'`).join(', ');
    await full.write((tx) => tx.run(`DELETE FROM feedback WHERE client_address IN (${list})`));
    await runScoring(full, { ...onDevnet, full: true });
    expect(await full.read(scores)).toEqual(withSwarm);
  });

  it('the operator score is the tail-risk mean of its agents, between their minimum and mean', async () => {
    const owners = await full.read(
      `SELECT s.address, s.score, s.operator_score, s.agent_count, list(a.score ORDER BY a.agent_id) AS agent_scores
         FROM address_scores s JOIN agent_scores a ON a.owner = s.address
        GROUP BY ALL`,
    );
    expect(owners.length).toBeGreaterThan(0);
    for (const owner of owners) {
      const scores = owner.agent_scores as number[];
      const weights = scores.map((s) => Math.exp(-s / 30));
      const expected = Math.round(scores.reduce((sum, s, i) => sum + s * weights[i]!, 0) / weights.reduce((a, b) => a + b, 0));
      expect(owner.operator_score).toBe(expected);
      expect(owner.score).toBe(expected);
      expect(owner.agent_count).toBe(scores.length);
      expect(expected).toBeGreaterThanOrEqual(Math.min(...scores));
      expect(expected).toBeLessThanOrEqual(Math.round(scores.reduce((a, b) => a + b, 0) / scores.length));
    }
  });

  it('payment addresses of registered agents are classified as agents; the rest by payment roles', async () => {
    const rows = await full.read(
      `SELECT c.address, c.entity_type, c.is_known_erc8004_agent, c.candidate_as_payer, c.candidate_as_payee
         FROM chain_scores c`,
    );
    const paymentWallets = new Set(truth.agents.map((a) => a.paymentWallet));
    for (const row of rows) {
      if (paymentWallets.has(row.address as `0x${string}`)) {
        expect(row).toMatchObject({ entity_type: 'agent', is_known_erc8004_agent: true });
      } else if (Number(row.candidate_as_payer) > 0 && Number(row.candidate_as_payee) > 0) {
        expect(row.entity_type).toBe('hybrid');
      } else if (Number(row.candidate_as_payee) > 0) {
        expect(row.entity_type).toBe('service');
      }
    }
  });

  it('stats of the run count what the serving tables hold', async () => {
    const [stats] = await full.read(`SELECT body::VARCHAR AS body FROM run_stats WHERE name = 'v2' ORDER BY run_id DESC LIMIT 1`);
    const body = JSON.parse(String(stats!.body));
    expect(body.version).toBe('v2');
    expect(body.erc8004.known_agents).toBe(truth.agents.length);
    expect(body.payments.total_candidate_transactions).toBe(truth.totals.candidate);
    expect(body.payments.total_verified_transactions).toBe(truth.totals.verified);
    // Each candidate payment once: `candidate` the unverified ones, `verified` the rest.
    expect(truth.totals.verified).toBeGreaterThan(0);
    expect(truth.totals.candidate).toBeGreaterThan(truth.totals.verified);
    expect(body.payments.verification_status_summary).toEqual({ candidate: truth.totals.candidate - truth.totals.verified, verified: truth.totals.verified });
    const [counts] = await full.read('SELECT count(*)::INTEGER AS n FROM address_scores');
    expect(body.reputation.scored_addresses).toBe(counts!.n);
    const grades = Object.values(body.reputation.score_distribution as Record<string, number>).reduce((a, b) => a + b, 0);
    expect(grades).toBe(counts!.n);
  });

  it('every stats body (v2, legacy x402 and erc8004) equals a count over the rows, in both stores', async () => {
    const count = <T>(rows: T[], keep: (row: T) => boolean) => rows.filter(keep).length;
    const by = <T>(rows: T[], key: (row: T) => string, keys: string[]) => Object.fromEntries(keys.map((k) => [k, count(rows, (r) => key(r) === k)]));
    const round1 = (x: number) => Math.round(x * 10) / 10;
    const grades = ['A', 'B', 'C', 'D', 'F'];
    for (const store of [full, incremental]) {
      const bodies = Object.fromEntries(
        (await store.read(`SELECT name, body::VARCHAR AS body FROM run_stats WHERE run_id = (SELECT max(run_id) FROM run_stats)`)).map((r) => [r.name, JSON.parse(String(r.body))]),
      );
      type AddressRow = { entity_type: string; grade: string; score: number; payer: number; payee: number; verified_payer: number; verified_payee: number; known_agent: boolean };
      const addresses = (await store.read(
        `SELECT entity_type, grade, score, candidate_as_payer AS payer, candidate_as_payee AS payee, verified_as_payer AS verified_payer,
                verified_as_payee AS verified_payee, is_known_erc8004_agent AS known_agent FROM address_scores`,
      )) as AddressRow[];
      const paid = addresses.filter((a) => a.payer + a.payee > 0);
      const sum = (rows: AddressRow[], f: (r: AddressRow) => number) => rows.reduce((t, r) => t + f(r), 0);
      expect(bodies.v2.reputation).toMatchObject({
        scored_addresses: addresses.length,
        entity_distribution: by(addresses, (a) => a.entity_type, ['agent', 'service', 'wallet', 'hybrid', 'unknown']),
        score_distribution: by(addresses, (a) => a.grade, grades),
      });
      expect(bodies.v2.payments).toMatchObject({
        addresses_with_candidate_payment_activity: paid.length,
        addresses_with_verified_payment_activity: count(addresses, (a) => a.verified_payer + a.verified_payee > 0),
        total_candidate_transactions: sum(addresses, (a) => a.payer),
        total_verified_transactions: sum(addresses, (a) => a.verified_payer),
        verification_status_summary: { candidate: sum(addresses, (a) => a.payer - a.verified_payer), verified: sum(addresses, (a) => a.verified_payer) },
      });
      expect(bodies.x402).toMatchObject({
        total_wallets: paid.length,
        distribution: by(paid, (a) => a.grade, grades),
        avg_score: round1(sum(paid, (a) => a.score) / paid.length),
        max_score: Math.max(...paid.map((a) => a.score)),
        min_score: Math.min(...paid.map((a) => a.score)),
        wallets_as_payer: count(addresses, (a) => a.payer > 0),
        wallets_as_payee: count(addresses, (a) => a.payee > 0),
        wallets_both_roles: count(addresses, (a) => a.payer > 0 && a.payee > 0),
        roles: by(paid, (a) => a.entity_type, ['agent', 'hybrid', 'service']),
        identified_agents: count(paid, (a) => a.known_agent),
      });
      const agents = (await store.read('SELECT chain, grade, score, metadata_quality FROM agent_scores')) as { chain: string; grade: string; score: number; metadata_quality: string }[];
      const agentGrades = by(agents, (a) => a.grade, grades);
      expect(bodies.erc8004).toMatchObject({
        total_agents: agents.length,
        average_score: round1(agents.reduce((t, a) => t + a.score, 0) / agents.length),
        max_score: Math.max(...agents.map((a) => a.score)),
        min_score: Math.min(...agents.map((a) => a.score)),
        grade_distribution: Object.fromEntries(grades.map((g) => [g, { count: agentGrades[g], pct: round1((100 * agentGrades[g]!) / agents.length) }])),
        chains: { devnet: agents.length },
      });
      expect(bodies.v2.erc8004).toMatchObject({
        known_agents: agents.length,
        by_chain: { devnet: agents.length },
        metadata_quality_distribution: by(agents, (a) => a.metadata_quality, ['real', 'placeholder', 'unknown']),
      });
    }
  });

  it('the weights the erc8004 stats advertise are those v1_score applies, and those docs/scoring.md gives', async () => {
    const dimensions = ['identity', 'activity', 'capability', 'reach', 'trust'];
    // v1_score at 10,000 on one dimension and 0 on the others: 10,000 × that dimension's weight.
    const unit = (d: string) => dimensions.map((other) => (other === d ? 10_000 : 0)).join(', ');
    const [applied] = await full.write(async (tx) => {
      await tx.run(sqlFile('score/macros'));
      return tx.all(`SELECT ${dimensions.map((d) => `v1_score(${unit(d)}) / 10000 AS ${d}`).join(', ')}`);
    });
    const weights = Object.fromEntries(dimensions.map((d) => [d, Number(applied![d])]));
    expect(Object.values(weights).reduce((a, b) => a + b, 0)).toBeCloseTo(1, 10);
    for (const store of [full, incremental]) {
      const [stats] = await store.read(`SELECT body::VARCHAR AS body FROM run_stats WHERE name = 'erc8004' ORDER BY run_id DESC LIMIT 1`);
      const scoring = JSON.parse(String(stats!.body)).scoring;
      expect(scoring).toEqual({ weights, version: 'v1', dimensions });
    }
    const docs = readFileSync(path.join(import.meta.dirname, '../docs/scoring.md'), 'utf8');
    const formula = /`score = round\(([^)]*)\)`/.exec(docs)?.[1];
    expect(formula).toBeDefined();
    const documented = Object.fromEntries(formula!.split('+').map((term) => term.trim().split(/\s+/)).map(([w, d]) => [d, Number(w)]));
    expect(documented).toEqual(weights);
  });

  // Last: it adds two addresses to the incremental store.
  it('the score job gives an unknown EVM address its row on the first configured chain, an unknown Solana address on solana', async () => {
    const deps = { store: incremental, config: loadConfig({ RPC_URL_DEVNET: devnet.rpcUrl }), log: silentLogger };
    expect(Object.keys(deps.config.chains)).toEqual(['devnet']);
    const evm = '0x00000000000000000000000000000000000dec0d';
    const solana = bs58.encode(new Uint8Array(32).fill(0xc0));
    for (const address of [evm, solana]) {
      expect(await runHandler(deps, 'score', { address })).toMatchObject({ kind: 'addresses', rescoredCount: 1 });
    }
    const rows = await incremental.read(
      'SELECT address, chain, entity_type, reasons FROM chain_scores WHERE address IN ($1, $2) ORDER BY chain',
      [evm, solana],
    );
    expect(rows).toEqual([
      { address: evm, chain: 'devnet', entity_type: 'unknown', reasons: ['no_indexed_activity'] },
      { address: solana, chain: 'solana', entity_type: 'unknown', reasons: ['no_indexed_activity'] },
    ]);
  });
});
