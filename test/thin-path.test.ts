// The thin path end to end on a real chain: devnet payments → ingest over JSON-RPC → score with
// the SQL in sql/ → GET /v1/reputation over HTTP, compared with what the devnet actually did.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Address } from 'viem';
import { startDevnet, type Devnet } from '../devnet/index.ts';
import { runThinScenario, type ThinScenario } from '../devnet/scenario.ts';
import { loadConfig } from '../pipeline/config.ts';
import { silentLogger } from '../pipeline/log.ts';
import { startServer, type RunningServer } from '../api/server.ts';
import { createAccount } from '../api/accounts.ts';
import { runOperationIn } from '../api/admin/operations.ts';
import { tempDataDir } from './helpers/temp.ts';

describe('devnet → ingest → score → HTTP lookup', () => {
  const dataDir = tempDataDir('thin');
  let devnet: Devnet;
  let scenario: ThinScenario;
  let server: RunningServer;
  let keys: { free: string; pro: string };

  beforeAll(async () => {
    devnet = await startDevnet({ port: 0 });
    scenario = await runThinScenario(devnet);
    const config = loadConfig({ DATA_DIR: dataDir, PORT: '0', RPC_URL_DEVNET: devnet.rpcUrl });
    server = await startServer(config, silentLogger);
    await (await server.jobs.run('ingest', {})).done;
    await (await server.jobs.run('score', {})).done;
    keys = {
      free: (await createAccount(server.store, { plan: 'free' }, server.keys)).api_key,
      pro: (await createAccount(server.store, { plan: 'pro' }, server.keys)).api_key,
    };
  });
  afterAll(async () => {
    await server?.close();
    await devnet?.close();
  });

  const lookup = async (address: string, key: string, query = '') => {
    const res = await fetch(`${server.url}/v1/reputation/${address}${query}`, { headers: { 'X-API-Key': key } });
    return { status: res.status, headers: res.headers, body: (await res.json()) as any };
  };

  it('scores the heavily paid merchant D and the lightly paid one F (a merchant with no registered identity tops out low)', async () => {
    const heavy = await lookup(scenario.roles.heavyMerchant, keys.pro);
    expect(heavy.status).toBe(200);
    expect(heavy.body.score).toMatchObject({ value: 26, grade: 'D', status: 'scored', version: 'v1' });
    const light = await lookup(scenario.roles.lightMerchant, keys.pro);
    expect(light.body.score).toMatchObject({ value: 17, grade: 'F', status: 'scored' });
  });

  it('the activity facts of every paying or paid address equal the ground truth', async () => {
    for (const truth of Object.values(scenario.addresses)) {
      const { body } = await lookup(truth.address, keys.pro);
      const activity = body.chains[0].activity;
      expect(body.subject).toEqual({ address: truth.address, chains: ['devnet'] });
      expect(activity).toMatchObject({
        as_candidate_payer: truth.candidate_as_payer,
        as_candidate_payee: truth.candidate_as_payee,
        as_verified_payer: truth.verified_as_payer,
        as_verified_payee: truth.verified_as_payee,
        total_candidate_transactions: truth.candidate_as_payer + truth.candidate_as_payee,
        counterparties_count: truth.counterparties.length,
        active_days: truth.active_days,
      });
    }
    const volume = await server.store.read(
      `SELECT address, (volume_usdc * 1e6)::HUGEINT::VARCHAR AS base_units FROM chain_scores`,
    );
    for (const row of volume) {
      const truth = scenario.addresses[row.address as Address]!;
      expect(BigInt(String(row.base_units))).toBe(truth.volume_as_payer + truth.volume_as_payee);
    }
    expect(volume).toHaveLength(Object.keys(scenario.addresses).length);
  });

  it('plain transfers and facilitator-less submitters are not x402 participants', async () => {
    expect((await lookup(scenario.roles.bystander, keys.pro)).body.error.code).toBe('unknown_address');
    expect((await lookup(scenario.roles.outsider, keys.pro)).body.error.code).toBe('unknown_address');
  });

  it('free plans get the redacted record, paid plans the full one', async () => {
    const free = (await lookup(scenario.roles.heavyMerchant, keys.free)).body;
    // Spec 2.7: the free tier gets only these fields.
    expect(Object.keys(free).sort()).toEqual(['agents', 'caveats', 'chains', 'data_semantics', 'score', 'updated_at', 'verification_level']);
    expect(Object.keys(free.score).sort()).toEqual(['grade', 'scored_at', 'status', 'value', 'version']);
    expect(free.chains[0]).toEqual({ chain: 'devnet', score: free.score, classification: { entity_type: 'service' } });
    expect(free.data_semantics).toBe('candidate_payment_activity_with_verified_subset');
    const paid = (await lookup(scenario.roles.heavyMerchant, keys.pro)).body;
    expect(Object.keys(paid.score).sort()).toEqual(['grade', 'scored_at', 'status', 'value', 'version']);
    expect(paid.chains[0].score.confidence).toBeGreaterThan(0);
    expect(paid.chains[0].classification).toMatchObject({ entity_type: 'service', has_verified_payment_activity: true, is_known: false });
  });

  it('filters by chain, and answers the spec errors', async () => {
    // Spec 4.1: chain filters chains and agents; the devnet merchant has none on base.
    const onBase = await lookup(scenario.roles.heavyMerchant, keys.pro, '?chain=base');
    expect([onBase.status, onBase.body.chains, onBase.body.score.value]).toEqual([200, [], expect.any(Number)]);
    const unknown = await lookup('0x1111111111111111111111111111111111111111', keys.pro);
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatchObject({ code: 'unknown_address', can_assess: true });
    const bad = await lookup('0x12345', keys.pro);
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('invalid_address');
    const missing = await fetch(`${server.url}/v1/reputation/${scenario.roles.heavyMerchant}`);
    expect(missing.status).toBe(401);
    expect(await missing.json()).toMatchObject({ error: { code: 'signup_required', signup_url: expect.stringMatching(/^http/) } });
    expect(missing.headers.get('x-request-id')).toMatch(/^req_/);
  });

  it('ingesting and scoring again changes no fact', async () => {
    const facts = `SELECT * EXCLUDE (run_id) FROM chain_scores ORDER BY chain, address`;
    const before = await server.store.read(facts);
    const ctx = { store: server.store, config: loadConfig({ DATA_DIR: dataDir, RPC_URL_DEVNET: devnet.rpcUrl }), log: silentLogger, runs: server.runs };
    // Re-read every block: forget the cursor so the same range is written again.
    await server.store.write((tx) => tx.run(`DELETE FROM ingest_cursors WHERE chain = 'devnet'`));
    await runOperationIn(ctx, 'jobs.run', { name: 'ingest' });
    // Without a job runner the job runs to the end, under the run id `jobs status` knows it by.
    const scored = (await runOperationIn(ctx, 'jobs.run', { name: 'score', wait: false })) as { run_id: string; state: string };
    expect(scored.state).toBe('completed');
    const [run] = (await runOperationIn(ctx, 'jobs.status', { runId: scored.run_id })) as Record<string, unknown>[];
    expect(run).toMatchObject({ run_id: scored.run_id, job_name: 'score', state: 'completed', trigger: 'manual' });
    expect(await server.store.read(facts)).toEqual(before);
    const [counts] = await server.store.read(`SELECT (SELECT count(*) FROM token_transfers)::INTEGER AS t, (SELECT count(*) FROM authorizations_used)::INTEGER AS a`);
    // Every Transfer is stored, x402 or not: the payments, the plain transfers and the mints.
    const mints = devnet.accounts.length - 1;
    expect(counts).toEqual({ t: scenario.payments.length + scenario.plainTransfers.length + mints, a: scenario.payments.length });
  });
});
