// The 2.8 view over several chains, per chain (`chain`), and for an address no run has scored yet;
// the identity block's endpoint status; over real HTTP against a real DuckDB scored by the job.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../pipeline/config.ts';
import { silentLogger } from '../pipeline/log.ts';
import { startServer, type RunningServer } from '../api/server.ts';
import { createAccount } from '../api/accounts.ts';
import { reputationViewFull, reputationViewSummary } from '../api/openapi/schemas.ts';
import { tempDataDir } from './helpers/temp.ts';

const usdc = '0x833589fcd6edb6e08f4c7c32d4f71b54bda02913';
const registry = '0x8004a169fb4a3325136eb29fa0ceb6d2e539a432';
const addr = (tag: string, n: number) => `0x${tag}${n.toString(16).padStart(40 - tag.length, '0')}`;

// The payer pays the same two services on base and on ethereum, on the same two days, and a third
// time on ethereum on another day of another month: 2 counterparties, 3 days, 2 months over all
// chains (summing the chains would say 4 counterparties and 5 days).
const payer = addr('d0', 1);
const services = [addr('e0', 1), addr('e0', 2)];
const payments: [chain: string, day: string, payee: string][] = [
  ['base', '2025-10-01', services[0]!],
  ['base', '2025-10-02', services[1]!],
  ['ethereum', '2025-10-01', services[0]!],
  ['ethereum', '2025-10-02', services[1]!],
  ['ethereum', '2025-11-05', services[0]!],
];
// Two agents with a web endpoint: one whose website was checked and did not answer, one never checked.
const unreachableOwner = addr('a0', 1);
const uncheckedOwner = addr('a0', 2);
// A third, paid at its own agentWallet: its website answered, it names an ENS name and a GitHub repo.
const walletOwner = addr('a0', 3);
const agentWallet = addr('b0', 3);
const unscored = addr('c0', 1);
// An owner of two agents: the website of one answered, the other's did not.
const mixedOwner = addr('a0', 4);
// A second payer, first paid on ethereum and a month later on base: its first payment over all
// chains is ethereum's, its last base's.
const laterPayer = addr('d0', 2);
const laterPayments: [chain: string, day: string, payee: string][] = [
  ['ethereum', '2025-09-15', services[0]!],
  ['base', '2025-10-20', services[1]!],
];

describe('the 2.8 view over chains', () => {
  const dataDir = tempDataDir('view-chains');
  let server: RunningServer;
  let now = new Date();
  let key: string;

  beforeAll(async () => {
    server = await startServer(loadConfig({ DATA_DIR: dataDir, PORT: '0' }), silentLogger, { now: () => now });
    await server.store.write(async (tx) => {
      for (const [i, [chain, day, payee]] of payments.entries()) {
        await tx.run(
          `INSERT INTO imported_transfers VALUES ('imp_view', $1, $2, $3::TIMESTAMP, $4, 0, $5, $6, $7, 1000000, $6, true)`,
          [chain, 100 + i, `${day} 12:00:00`, `0x${(i + 1).toString(16).padStart(64, 'e')}`, usdc, payer, payee],
        );
      }
      for (const [i, [chain, day, payee]] of laterPayments.entries()) {
        await tx.run(
          `INSERT INTO imported_transfers VALUES ('imp_view', $1, $2, $3::TIMESTAMP, $4, 0, $5, $6, $7, 4000000, $6, true)`,
          [chain, 200 + i, `${day} 12:00:00`, `0x${(i + 1).toString(16).padStart(64, 'f')}`, usdc, laterPayer, payee],
        );
      }
      for (const [id, owner] of [[1, unreachableOwner], [2, uncheckedOwner], [3, walletOwner], [4, mixedOwner], [5, mixedOwner]] as const) {
        await tx.run(`INSERT INTO imported_agents VALUES ('imp_view', 'base', $1, $2, $3, $4, 100, NULL, NULL)`, [registry, String(id), owner, `https://agent${id}.example/agent.json`]);
        const services = [{ name: 'web', endpoint: `https://agent${id}.example` }, ...(id === 3 ? [{ name: 'ENS', endpoint: 'agent3.eth' }] : [])];
        await tx.run(
          `INSERT INTO registration_files (chain, registry, agent_id, agent_uri, fetched_at, fetch_status, metadata_kind, name, description, services, metadata_quality)
           VALUES ('base', $1, $2, $3, TIMESTAMP '2025-11-01 00:00:00', 'ok', 'https', $4, NULL, $5::JSON, 'real')`,
          [registry, String(id), `https://agent${id}.example/agent.json`, `Agent ${id}`, JSON.stringify(services)],
        );
      }
      await tx.run(
        `INSERT INTO agent_evidence VALUES ('base', $1, 1, TIMESTAMP '2025-11-01 00:00:00', false, 'https://agent1.example', false, false, false, NULL, NULL),
                                           ('base', $1, 3, TIMESTAMP '2025-11-01 00:00:00', false, 'https://agent3.example', true, false, true, 'https://github.com/agent3/agent3', 12),
                                           ('base', $1, 4, TIMESTAMP '2025-11-01 00:00:00', false, 'https://agent4.example', false, false, false, NULL, NULL),
                                           ('base', $1, 5, TIMESTAMP '2025-11-01 00:00:00', false, 'https://agent5.example', true, false, false, NULL, NULL)`,
        [registry],
      );
      await tx.run(`INSERT INTO agent_metadata VALUES ('base', 200, $1, 0, $2, 3, 'agentWallet', $3)`, [`0x${'c3'.repeat(32)}`, registry, `0x${'0'.repeat(24)}${agentWallet.slice(2)}`]);
    });
    await (await server.jobs.run('score', {})).done;
    await server.store.write((tx) => tx.run(`INSERT INTO known_addresses VALUES ($1, 'evm', 'cli', utc_now())`, [unscored]));
    const [run] = await server.store.read(`SELECT strftime(scored_at, '%Y-%m-%dT%H:%M:%SZ') AS t FROM scoring_runs ORDER BY run_id DESC LIMIT 1`);
    now = new Date(Date.parse(String(run!.t)) + 60_000);
    key = (await createAccount(server.store, { plan: 'enterprise' }, server.keys)).api_key;
  });
  afterAll(() => server?.close());

  const get = async (path: string) => {
    const res = await fetch(`${server.url}${path}`, { headers: { 'X-API-Key': key } });
    return { status: res.status, body: (await res.json()) as any };
  };

  it('counts a counterparty, a day and a month on two chains once', async () => {
    const { status, body } = await get(`/v1/reputation/${payer}?view=full`);
    expect(status).toBe(200);
    reputationViewFull.parse(body);
    // Payments and volume (1 USDC each) summed over the chains; first and last payment over all.
    expect(body.metrics).toMatchObject({ total_transactions: 5, unique_counterparties: 2, total_volume_usdc: 5, first_seen: '2025-10-01T12:00:00Z', last_seen: '2025-11-05T12:00:00Z' });
    expect(body.highlights).toMatchObject({ total_transactions: 5, total_volume_usdc: 5, last_seen: '2025-11-05T12:00:00Z' });
    expect(body.factors.diversity.raw).toEqual({ unique_counterparties: 2 });
    expect(body.factors.consistency.raw).toEqual({ active_days: 3, active_months: 2 });
    expect(body.highlights.unique_counterparties).toBe(2);
    // Below the 3 counterparties of counterparty_diversity_ok, as on either chain alone.
    expect(body.decision.reasons).toContain('low_diversity');
    const [kept] = await server.store.read('SELECT counterparties_count, active_days, active_months FROM address_scores WHERE address = $1', [payer]);
    expect(kept).toEqual({ counterparties_count: 2, active_days: 3, active_months: 2 });
  });

  it('over all chains, first_seen is the earliest chain\'s first payment and last_seen the latest chain\'s last; each chain alone has its own', async () => {
    const { body } = await get(`/v1/reputation/${laterPayer}?view=full`);
    expect(body.metrics).toMatchObject({ total_transactions: 2, total_volume_usdc: 8, first_seen: '2025-09-15T12:00:00Z', last_seen: '2025-10-20T12:00:00Z' });
    expect(body.factors.tenure.raw.first_seen).toBe('2025-09-15T12:00:00Z');
    expect(body.metrics.unique_counterparties).toBe(2);
    // Each chain alone: one counterparty there, one payment, its own days.
    for (const [chain, day] of laterPayments) {
      const one = (await get(`/v1/reputation/${laterPayer}?view=full&chain=${chain}`)).body;
      expect(one.metrics, chain).toMatchObject({ total_transactions: 1, unique_counterparties: 1, total_volume_usdc: 4, first_seen: `${day}T12:00:00Z`, last_seen: `${day}T12:00:00Z` });
      expect(one.factors.diversity.raw, chain).toEqual({ unique_counterparties: 1 });
      expect(one.factors.consistency.raw, chain).toEqual({ active_days: 1, active_months: 1 });
    }
  });

  it('without chain, the record lists its chains best first and the view\'s data_through is the best chain', async () => {
    const freeKey = (await createAccount(server.store, { plan: 'free' }, server.keys)).api_key;
    const scores = new Map<string, number[]>();
    for (const address of [payer, laterPayer]) {
      const record = (await get(`/v1/reputation/${address}`)).body;
      const byScore = [...record.chains].sort((a: any, b: any) => b.score.value - a.score.value || a.chain.localeCompare(b.chain));
      scores.set(address, byScore.map((c: any) => c.score.value));
      const names = byScore.map((c: any) => c.chain);
      expect(record.chains.map((c: any) => c.chain), address).toEqual(names);
      expect(record.subject.chains, address).toEqual(names);
      // The free (redacted) record lists them in the same order.
      const free = (await (await fetch(`${server.url}/v1/reputation/${address}`, { headers: { 'X-API-Key': freeKey } })).json()) as any;
      expect(free.chains.map((c: any) => c.chain), address).toEqual(names);
      const view = (await get(`/v1/reputation/${address}?view=summary`)).body;
      expect(view.data_through, address).toEqual({ chain: names[0], block: null });
      now = new Date(now.getTime() + 1_000); // the free plan's one request per second
    }
    // The payer's two chains score differently, so their order is the scores'; the later payer's
    // score the same, so theirs is the names'.
    expect(scores.get(payer)![0]).toBeGreaterThan(scores.get(payer)![1]!);
    expect(scores.get(laterPayer)![0]).toBe(scores.get(laterPayer)![1]);
  });

  it('the 2.7 record with chain: chains and agents are that chain\'s, the subject (as the score) stays the address\'s', async () => {
    // Spec 4.1: `chain` filters `chains` and `agents`; subject.chains names every chain of the
    // queried address, as the OpenAPI document and the README say.
    const all = (await get(`/v1/reputation/${payer}`)).body;
    expect(all.subject.chains).toHaveLength(2);
    for (const chain of ['base', 'ethereum', 'polygon']) {
      const { status, body } = await get(`/v1/reputation/${payer}?chain=${chain}`);
      expect(status, chain).toBe(200);
      expect(body.chains.map((c: any) => c.chain), chain).toEqual(chain === 'polygon' ? [] : [chain]);
      expect([body.subject, body.score], chain).toEqual([all.subject, all.score]);
    }
    const owner = (await get(`/v1/reputation/${walletOwner}`)).body;
    expect(owner.agents.map((a: any) => a.chain)).toEqual(['base']);
    const elsewhere = (await get(`/v1/reputation/${walletOwner}?chain=ethereum`)).body;
    expect([elsewhere.agents, elsewhere.chains, elsewhere.subject]).toEqual([[], [], owner.subject]);
  });

  it('payments no facilitator submitted are candidate activity only: not verified, with a caveat saying so', async () => {
    const record = (await get(`/v1/reputation/${payer}`)).body;
    expect(record.chains).toHaveLength(2);
    for (const chain of record.chains) {
      expect(chain.classification, chain.chain).toMatchObject({ has_candidate_payment_activity: true, has_verified_payment_activity: false });
      expect(chain.activity.total_verified_transactions, chain.chain).toBe(0);
    }
    expect(record.caveats).toContain('No facilitator-settled payments: activity is unverified.');
  });

  it('with chain, describes that chain alone; the score stays the address’s', async () => {
    const all = (await get(`/v1/reputation/${payer}?view=full`)).body;
    const { status, body } = await get(`/v1/reputation/${payer}?view=full&chain=base`);
    expect(status).toBe(200);
    reputationViewFull.parse(body);
    expect(body.data_through.chain).toBe('base');
    expect(body.metrics).toMatchObject({ total_transactions: 2, unique_counterparties: 2, first_seen: '2025-10-01T12:00:00Z', last_seen: '2025-10-02T12:00:00Z' });
    expect(body.factors.consistency.raw).toEqual({ active_days: 2, active_months: 1 });
    expect([body.score, body.grade]).toEqual([all.score, all.grade]);
    const ethereum = (await get(`/v1/reputation/${payer}?view=summary&chain=ethereum`)).body;
    reputationViewSummary.parse(ethereum);
    expect(ethereum.data_through.chain).toBe('ethereum');
    expect(ethereum.highlights).toMatchObject({ total_transactions: 3, unique_counterparties: 2, last_seen: '2025-11-05T12:00:00Z' });
    // No row on polygon: that chain's view is empty (no activity, a denial), the score still the address's.
    const polygon = await get(`/v1/reputation/${payer}?view=full&chain=polygon`);
    expect(polygon.status).toBe(200);
    reputationViewFull.parse(polygon.body);
    expect(polygon.body).toMatchObject({ score: all.score, grade: all.grade, data_through: { chain: 'polygon', block: null }, identity: null });
    expect(polygon.body.metrics).toMatchObject({ total_transactions: 0, unique_counterparties: 0, first_seen: null, last_seen: null });
    expect(polygon.body.decision.allow).toBe(false);
    expect(polygon.body.decision.reasons[0]).toBe('insufficient_activity');
  });

  it('an address no run has scored yet: the view with null score and a denial, on any chain', async () => {
    const summary = await get(`/v1/reputation/${unscored}?view=summary`);
    expect(summary.status).toBe(200);
    reputationViewSummary.parse(summary.body);
    expect(summary.body).toMatchObject({ address: unscored, score: null, grade: null, computed_at: null, preview: { allow_hint: false, grade_hint: null } });
    const full = await get(`/v1/reputation/${unscored}?view=full&min_grade=D`);
    reputationViewFull.parse(full.body);
    expect(full.body.decision).toEqual({ allow: false, reasons: ['insufficient_activity'], policy: { min_grade: 'D', min_transactions: 10 } });
    expect(full.body.identity).toBeNull();
    // Indexed: 200 whatever the chain (its activity there is not known yet).
    const onChain = await get(`/v1/reputation/${unscored}?chain=base`);
    expect([onChain.status, onChain.body.score.status, onChain.body.chains]).toEqual([200, 'known_unscored', []]);
    const viewOnChain = await get(`/v1/reputation/${unscored}?view=summary&chain=base`);
    reputationViewSummary.parse(viewOnChain.body);
    expect(viewOnChain.body).toMatchObject({ score: null, data_through: { chain: 'base', block: null } });
  });

  it('endpoint status: reachable when one agent\'s check answered, unreachable only when every check failed, unknown when never checked', async () => {
    const checked = (await get(`/v1/reputation/${unreachableOwner}?view=full`)).body;
    const never = (await get(`/v1/reputation/${uncheckedOwner}?view=full`)).body;
    expect(checked.identity).toMatchObject({ registered_agent: true, endpoint_status: 'unreachable' });
    expect(never.identity).toMatchObject({ registered_agent: true, endpoint_status: 'unknown' });
    for (const query of ['?view=full', '?view=full&chain=base']) {
      expect((await get(`/v1/reputation/${mixedOwner}${query}`)).body.identity, query).toMatchObject({ registered_agent: true, endpoint_status: 'reachable' });
    }
  });

  it('identity: an owner whose agent is paid at its own wallet shows that agent, as the wallet does', async () => {
    const identity = { registered_agent: true, chains_registered: ['base'], ens_name: 'agent3.eth', endpoint_status: 'reachable', github_repo: 'https://github.com/agent3/agent3', verification_level: 'none' };
    for (const address of [walletOwner, agentWallet]) {
      expect((await get(`/v1/reputation/${address}?view=full`)).body.identity, address).toEqual(identity);
      expect((await get(`/v1/reputation/${address}?view=full&chain=base`)).body.identity, address).toEqual(identity);
    }
  });

  it('an address never indexed: 404 unknown_address with can_assess', async () => {
    const { status, body } = await get(`/v1/reputation/${addr('f0', 1)}`);
    expect(status).toBe(404);
    expect(body.error).toMatchObject({ code: 'unknown_address', can_assess: true, message: 'this address has not been indexed' });
  });

  // Last: it makes a newer run.
  it('data_through.block is the block the chain\'s token source had reached when the newest run read it, null without one', async () => {
    // Ethereum's payments were ingested through block 654; base has only its identity registry's cursor.
    await server.store.write((tx) =>
      tx.run(`INSERT INTO ingest_cursors VALUES ('ethereum', 'token', 654, 'h654', utc_now()), ('ethereum', 'identity', 700, 'h700', utc_now()),
                                                ('base', 'identity', 987, 'h987', utc_now())`),
    );
    await (await server.jobs.run('score', {})).done;
    for (const [chain, block] of [['ethereum', 654], ['base', null]] as const) {
      const { status, body } = await get(`/v1/reputation/${payer}?view=summary&chain=${chain}`);
      expect([status, body.data_through], chain).toEqual([200, { chain, block }]);
    }
  });
});
