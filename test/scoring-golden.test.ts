// Golden files for scoring model v1. A fixed devnet history (pinned genesis time, fixed seed, plus
// a few imported payments and ratings so that every kind of feedback weight occurs) is ingested,
// its registration files fetched, and scored by a full run; then
//   - for a handful of addresses chosen by role, the API's free record, paid record and view=full
//     variant, fetched over HTTP, must equal test/golden/<role>.json field for field;
//   - every row of the serving tables must equal test/golden/serving-tables.json;
//   - every macro of sql/score/macros.sql at fixed inputs must equal test/golden/macros.json
//     (scores are whole numbers: a small change to a weight may not move the scenario's scores,
//     but it moves some of these values).
// So any change to a scoring formula fails the test.
//
// What depends on the run is checked, then replaced by a placeholder (see `volatile`); the API's
// clock is pinned (`viewedAt`), so the view's recency and tenure factors are part of the files;
// the registration server's random port is replaced by a fixed host name. Evidence
// gathering is kept off the internet (see the dns mock), so the files do not depend on whether the
// real websites some registration files name answer.
//
// After an intended model change: UPDATE_GOLDEN=1 npx vitest run test/scoring-golden.test.ts
// rewrites the files; review their diff and commit it with the change.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Address } from 'viem';
import { DuckDBInstance } from '@duckdb/node-api';
import { startDevnet, type Devnet } from '../devnet/index.ts';
import { simulate, type SimulationTruth } from '../devnet/simulate.ts';
import type { RegistrationServer } from '../devnet/registration-server.ts';
import { loadConfig } from '../pipeline/config.ts';
import { silentLogger } from '../pipeline/log.ts';
import { openStore } from '../pipeline/store/store.ts';
import { readRows, type Row } from '../pipeline/store/rows.ts';
import { sqlFile } from '../pipeline/store/sql-files.ts';
import { ingestChain } from '../pipeline/ingest/ingest-chain.ts';
import { fetchMetadataJob } from '../pipeline/metadata/fetch-metadata-job.ts';
import { runScoring } from '../pipeline/score/run.ts';
import { safeGet } from '../pipeline/metadata/safe-get.ts';
import { startServer, type RunningServer } from '../api/server.ts';
import { createAccount } from '../api/accounts.ts';
import { tempDataDir } from './helpers/temp.ts';

// Only loopback names resolve: the catalog registration files name real websites, whose answers
// (or the lack of a network) must not reach the golden files.
vi.mock('node:dns/promises', async (importOriginal) => {
  const dns = await importOriginal<typeof import('node:dns/promises')>();
  const loopback = new Set(['127.0.0.1', 'localhost', '::1']);
  const lookup = ((host: string, options: object) =>
    loopback.has(host)
      ? dns.lookup(host, options as never)
      : Promise.reject(Object.assign(new Error(`golden test: no DNS for ${host}`), { code: 'ENOTFOUND' }))) as typeof dns.lookup;
  return { ...dns, lookup, default: { ...dns, lookup } };
});

const goldenDir = new URL('./golden/', import.meta.url);
const update = process.env.UPDATE_GOLDEN === '1';

const scenario = {
  seed: 'golden',
  agents: 12,
  payments: 120,
  days: 45,
  // Noon UTC: whole-day steps never cross midnight.
  genesisTime: '2025-03-03T12:00:00.000Z',
};
const registrationsHost = 'registrations.devnet';
const dayMs = 86_400_000;

/**
 * The API's clock: 20 days after the scenario's last payment (2025-04-17 11:51 UTC), at least three
 * hours from a whole number of days after any first or last payment of the roles, so that moving
 * it by the seconds the test waits out rate limits changes no day count. The view's recency and
 * tenure factors then lie strictly between 0 and 100 (see `expectedClockFactors`).
 */
const viewedAt = Date.parse('2025-05-07T18:00:00.000Z');

/**
 * The view's clock-dependent factors per role at `viewedAt`, from docs/scoring.md ("The view
 * variant"): days = whole days from the payment to the request; recency = 100 × max(0, 1 − days
 * since the last payment / 90), tenure = 100 × min(1, days since the first payment / 365), to one
 * decimal. E.g. agent-wallet: last paid 2025-04-12 14:10:43, 25 days → 100 × (1 − 25/90) = 72.2;
 * first paid 2025-03-20 15:00, 48 days → 100 × 48/365 = 13.2.
 */
const expectedClockFactors: Record<string, { last: number; recency: number; first: number; tenure: number }> = {
  'operator': { last: 20, recency: 77.8, first: 57, tenure: 15.6 },
  'sybil-target-wallet': { last: 20, recency: 77.8, first: 50, tenure: 13.7 },
  'agent-wallet': { last: 25, recency: 72.2, first: 48, tenure: 13.2 },
  'heavy-buyer': { last: 20, recency: 77.8, first: 64, tenure: 17.5 },
  'merchant': { last: 20, recency: 77.8, first: 64, tenure: 17.5 },
  'candidate-only-payer': { last: 35, recency: 61.1, first: 48, tenure: 13.2 },
};

/** A payer with candidate payments only (through a submitter that is no facilitator), imported. */
const candidateOnlyPayer = `0x${'ca4d1da7e'.padEnd(40, '0')}` as Address;

const roles = ['operator', 'sybil-target-wallet', 'agent-wallet', 'heavy-buyer', 'merchant', 'candidate-only-payer'] as const;
type Role = (typeof roles)[number];

/** The addresses the golden files describe, chosen from the ground truth by rule, not by hand. */
function chooseAddresses(truth: SimulationTruth): Record<Role, Address> {
  const facts = truth.addresses;
  const most = (addresses: Address[], measure: (a: Address) => number) =>
    [...addresses].sort((a, b) => measure(b) - measure(a) || a.localeCompare(b))[0]!;
  const agent = (id: number) => truth.agents.find((a) => a.agentId === id)!;
  const operator = most(Object.keys(truth.operators) as Address[], (a) => truth.operators[a]!.length);
  const targetWallets = truth.roles.sybilTargets.map((id) => agent(id).paymentWallet).filter((w) => w !== operator);
  return {
    // Owns the most agents: its score is the operator score.
    operator,
    // Paid for an agent that a sybil farm rated: the farm's feedback carries no weight.
    'sybil-target-wallet': targetWallets[0]!,
    // A verified agentWallet that is not its owner.
    'agent-wallet': truth.agents.find((a) => a.agentWallet !== null && a.agentWallet !== a.owner)!.agentWallet!,
    'heavy-buyer': most(truth.roles.buyers, (a) => facts[a]?.candidate_as_payer ?? 0),
    'merchant': most(truth.roles.merchants, (a) => facts[a]?.candidate_as_payee ?? 0),
    'candidate-only-payer': candidateOnlyPayer,
  };
}

/**
 * Imported on top of the devnet history, so that every kind of feedback weight occurs: the
 * candidate-only payer pays an agent twice and rates it (paid_candidate), a buyer rates an agent
 * it never paid (active_elsewhere), and the operator rates its own agent (self_feedback).
 */
function importedExtras(truth: SimulationTruth, addresses: Record<Role, Address>) {
  const paid = truth.agents.find((a) => a.paymentWallet === addresses['agent-wallet'])!;
  const [stranger, unpaid] = truth.roles.buyers
    .flatMap((buyer) => truth.agents.filter((a) => !truth.addresses[buyer]!.counterparties.includes(a.paymentWallet)).map((a) => [buyer, a] as const))[0]!;
  const own = truth.agents.find((a) => a.owner === addresses.operator)!;
  const rating = (client: Address, agentId: number, value: number, givenAt: string) => ({ client, agentId, value, givenAt });
  return {
    transfers: [
      { payer: candidateOnlyPayer, payee: paid.paymentWallet, value: 1_250_000n, at: '2025-03-20 15:00:00' },
      { payer: candidateOnlyPayer, payee: paid.paymentWallet, value: 40_000n, at: '2025-04-02 10:30:00' },
    ],
    feedback: [
      rating(candidateOnlyPayer, paid.agentId, 20, '2025-04-03 09:00:00'),
      rating(stranger, unpaid.agentId, 90, '2025-04-05 18:00:00'),
      rating(addresses.operator, own.agentId, 100, '2025-04-06 12:00:00'),
    ],
  };
}

type Json = Record<string, any>;

/**
 * The serving tables a run writes (none holds a wall-clock time): columns left out, row order.
 * agent_uri is an input, and data: URIs embed the registration server's port in base64.
 */
const servingTables = {
  agent_scores: ['run_id, agent_uri', 'chain, agent_id'],
  feedback_weights: ['run_id', 'chain, agent_id, client_address'],
  chain_scores: ['run_id', 'chain, address'],
  address_scores: ['run_id', 'address'],
};

/** Compares `actual` with test/golden/<name>.json, or rewrites the file under UPDATE_GOLDEN=1. */
function expectGolden(name: string, actual: unknown, format = (value: unknown) => JSON.stringify(value, null, 2)) {
  const file = new URL(`${name}.json`, goldenDir);
  if (update) {
    mkdirSync(goldenDir, { recursive: true });
    writeFileSync(file, `${format(actual)}\n`);
    return;
  }
  expect(existsSync(file), `no ${file.pathname}: run with UPDATE_GOLDEN=1 to create it`).toBe(true);
  expect(actual).toEqual(JSON.parse(readFileSync(file, 'utf8')));
}

/** Tables (or groups) of rows, one row (or one named value) per line, so a changed number shows as a changed line. */
function rowPerLine(value: unknown): string {
  const group = (rows: unknown[] | Record<string, unknown>) =>
    Array.isArray(rows)
      ? `[\n${rows.map((row) => `    ${JSON.stringify(row)}`).join(',\n')}\n  ]`
      : `{\n${Object.entries(rows).map(([key, v]) => `    ${JSON.stringify(key)}: ${JSON.stringify(v)}`).join(',\n')}\n  }`;
  const groups = Object.entries(value as Record<string, unknown[] | Record<string, unknown>>);
  return `{\n${groups.map(([name, rows]) => `  ${JSON.stringify(name)}: ${group(rows)}`).join(',\n')}\n}`;
}

describe('golden reputation records of a fixed devnet history', () => {
  const dataDir = tempDataDir('golden');
  let devnet: Devnet;
  let registrations: RegistrationServer;
  let server: RunningServer;
  let truth: SimulationTruth;
  let addresses: Record<Role, Address>;
  let scoredAt: string;
  let keys: { free: string; pro: string };
  let now = new Date(viewedAt);
  const servingState: Record<string, Row[]> = {};

  beforeAll(async () => {
    devnet = await startDevnet({ port: 0, genesisTime: new Date(scenario.genesisTime) });
    const simulation = await simulate(devnet, { agents: scenario.agents, payments: scenario.payments, seed: scenario.seed, days: scenario.days });
    truth = simulation.truth;
    registrations = simulation.registrationServer;
    addresses = chooseAddresses(truth);

    const store = await openStore({ dataDir, readConnections: 1 });
    try {
      const chain = loadConfig({ RPC_URL_DEVNET: devnet.rpcUrl }).chains.devnet!;
      await ingestChain({ store, chain, log: silentLogger });
      const extra = importedExtras(truth, addresses);
      await store.write(async (tx) => {
        await tx.run(`INSERT INTO imports VALUES ('imp_golden_t', 'transfers', 'golden-transfers.csv', 'csv', $1, $1, 0, utc_now()),
                                                 ('imp_golden_f', 'feedback', 'golden-feedback.csv', 'csv', $2, $2, 0, utc_now())`,
                     [extra.transfers.length, extra.feedback.length]);
        for (const [i, t] of extra.transfers.entries()) {
          await tx.run(
            `INSERT INTO imported_transfers VALUES ('imp_golden_t', 'devnet', $1, $2::TIMESTAMP, $3, 0, $4, $5, $6, $7::HUGEINT, $8, true)`,
            [1_000_000 + i, t.at, `0x${'90'.repeat(31)}${i.toString(16).padStart(2, '0')}`, truth.contracts.token, t.payer, t.payee,
             t.value.toString(), truth.roles.outsider],
          );
        }
        for (const [i, f] of extra.feedback.entries()) {
          await tx.run(
            `INSERT INTO imported_feedback VALUES ('imp_golden_f', 'devnet', $1, $2, $3, $4, $5, 0, 'starred', '', $6::TIMESTAMP, false)`,
            [truth.contracts.identityRegistry, f.agentId, f.client, 1000 + i, f.value, f.givenAt],
          );
        }
      });
      await fetchMetadataJob({ store, log: silentLogger }, { allowPrivateAddresses: true, ca: registrations.caPem, concurrency: 4 });
      scoredAt = (await runScoring(store, { full: true, evmChain: 'devnet' })).scoredAt;
      for (const [table, [leftOut, order]] of Object.entries(servingTables)) {
        servingState[table] = await store.read(`SELECT * EXCLUDE (${leftOut}) FROM ${table} ORDER BY ${order}`);
      }
    } finally {
      await store.close();
    }

    // The API on the same data, with no chain to ingest and no scheduled run during the test.
    server = await startServer(loadConfig({ DATA_DIR: dataDir, PORT: '0', SCORE_INTERVAL_SECONDS: '86400' }), silentLogger, { now: () => now });
    keys = {
      free: (await createAccount(server.store, { plan: 'free' }, server.keys)).api_key,
      pro: (await createAccount(server.store, { plan: 'pro' }, server.keys)).api_key,
    };
  }, 120_000);

  afterAll(async () => {
    await server?.close();
    await registrations?.close();
    await devnet?.close();
  });

  const lookup = async (address: string, key: string, query = '') => {
    let res = await fetch(`${server.url}/v1/reputation/${address}${query}`, { headers: { 'X-API-Key': key } });
    // The free plan answers one request per second (spec 8): move the API's clock past the window once.
    if (res.status === 429) {
      now = new Date(now.getTime() + Number(res.headers.get('retry-after')) * 1_000);
      res = await fetch(`${server.url}/v1/reputation/${address}${query}`, { headers: { 'X-API-Key': key } });
    }
    expect(res.status).toBe(200);
    return { body: (await res.json()) as Json };
  };

  /**
   * The fields that depend on the run: each is checked, then replaced by a placeholder. Everything
   * else is compared as served; the view's clock-dependent factors are also checked against
   * docs/scoring.md's formulas.
   */
  const volatile = {
    record(record: Json) {
      for (const score of [record.score, ...record.chains.map((c: Json) => c.score)]) {
        expect(score).toMatchObject({ scored_at: scoredAt, status: 'scored' });
        score.scored_at = '<scored_at>';
      }
      expect(record.updated_at).toBe(scoredAt);
      record.updated_at = '<scored_at>';
    },
    view(view: Json, role: Role) {
      expect(view.computed_at).toBe(scoredAt);
      view.computed_at = '<scored_at>';
      const { tenure, recency } = view.factors;
      const daysTo = (iso: string) => Math.floor((viewedAt - Date.parse(iso)) / dayMs);
      const expected = expectedClockFactors[role]!;
      expect({ last: daysTo(recency.raw.last_seen), first: daysTo(tenure.raw.first_seen) }).toEqual({ last: expected.last, first: expected.first });
      expect({
        last: recency.raw.days_since_last_seen, recency: recency.score,
        first: tenure.raw.tenure_days, tenure: tenure.score, highlighted: view.highlights.tenure_days,
      }).toEqual({ ...expected, highlighted: expected.first });
    },
  };

  /** The registration server listens on a random port; its URLs appear in registration files. */
  const withoutPort = (value: Json): Json =>
    JSON.parse(JSON.stringify(value).replaceAll(new URL(registrations.url).host, registrationsHost));

  it('evidence gathering cannot reach the internet', async () => {
    const answer = await safeGet('https://example.com/', { accept: 'text/html', allowPrivateAddresses: true });
    expect(answer).toMatchObject({ ok: false, status: 'network_error', error: 'golden test: no DNS for example.com' });
  });

  it('the scenario is the one the golden files were made from', () => {
    expect({ blocks: truth.blocks, period: truth.period, totals: truth.totals }).toEqual({
      blocks: { first: 22, last: 61 },
      period: { from: '2025-03-03', to: '2025-04-17' },
      totals: expect.objectContaining({ candidate: 120, verified: 110, agents: 12, feedback: 36, sybilFeedback: 15 }),
    });
  });

  it('every row of the serving tables equals test/golden/serving-tables.json', () => {
    expect(servingState.agent_scores).toHaveLength(scenario.agents);
    expectGolden('serving-tables', withoutPort(servingState), rowPerLine);
  });

  it.each(roles)('%s: the free and paid records and the view=full variant equal its golden file', async (role) => {
    const address = addresses[role];
    const free = await lookup(address, keys.free);
    const paid = await lookup(address, keys.pro);
    const view = await lookup(address, keys.pro, '?view=full');
    volatile.record(free.body);
    volatile.record(paid.body);
    volatile.view(view.body, role);
    expectGolden(role, withoutPort({ role, address, free: free.body, paid: paid.body, view_full: view.body }));
  });
});

// Every formula of sql/score/macros.sql at fixed inputs (test/golden/macros.json).
const points = (n: number, at: (i: number) => string) => Array.from({ length: n }, (_, i) => at(i));
const nullable = (i: number, value: string, type: string) => (i % 3 === 0 ? `NULL::${type}` : value);
const macroCalls: Record<string, string[]> = {
  saturate: points(10, (i) => `saturate(${[0, 1, 4, 9, 25, 49, 99, 100, 500, 5000][i]}, ${[10, 20, 50, 100, 200][i % 5]})`),
  activity_dimension: points(16, (i) => `activity_dimension(${(i * 37) % 250}, ${(i * 53) % 600}, ${(i * 11) % 75}, ${i % 8})`),
  reach_dimension: points(12, (i) => `reach_dimension(${(i * 7) % 60}, ${(i * 13) % 120})`),
  identity_dimension: points(12, (i) =>
    `identity_dimension(${["'real'", "'placeholder'", "'unknown'", 'NULL'][i % 4]}, ${nullable(i, "'a.eth'", 'VARCHAR')}, ` +
    `${nullable(i + 1, "'https://a.example/'", 'VARCHAR')}, ${nullable(i + 2, String(i % 2 === 0), 'BOOLEAN')}, ` +
    `${nullable(i + 1, "'https://github.com/o/r'", 'VARCHAR')}, ${nullable(i, String(i * 19), 'INTEGER')})`),
  declared_capability: points(10, (i) =>
    `declared_capability(${i % 5}, ${i % 2 === 0}, ${i % 3 === 0}, ${i % 4 === 0}, ${i % 3 === 1}, ${nullable(i, 'true', 'BOOLEAN')})`),
  capability_dimension: points(10, (i) => `capability_dimension(${(i * 13) % 65}, ${(i * 23) % 150})`),
  trust_dimension: points(12, (i) => `trust_dimension(${((i * 0.75) * ((i * 29) % 101)).toFixed(4)}, ${(i * 0.75).toFixed(2)})`),
  score_confidence: points(10, (i) => `score_confidence(${(i * 9) % 80}, ${[0, 0.25, 0.5, 1][i % 4]}, ${(i * 0.7).toFixed(1)})`),
  v1_score: points(16, (i) =>
    `v1_score(${[(i * 173) % 1001, (i * 311) % 1001, (i * 457) % 1001, (i * 599) % 1001, (i * 733) % 1001].map((t) => (t / 10).toFixed(1)).join(', ')})`),
  operator_score: points(16, (i) => `operator_score([${points(1 + (i % 6), (j) => String((i * 41 + j * 67) % 101)).join(', ')}])`),
  grade_of: [0, 24, 25, 49, 50, 74, 75, 89, 90, 100].map((s) => `grade_of(${s})`),
  feedback_rating: [
    ['starred', 87, 0], ['starred', 150, 0], ['uptime', 9950, 2], ['reachable', 1, 0], ['reachable', 0, 0],
    ['ownerVerified', 3, 0], ['successRate', 97, 0], ['responseTime', 250, 0], ['revenues', 10, 0], ['tradingYield', -5, 1],
  ].map(([tag, value, decimals]) => `feedback_rating('${tag}', ${value}, ${decimals})`),
  feedback_group: ['starred', 'uptime', 'reachable', 'successRate', 'responseTime', 'blocktimeFreshness', 'other'].map((t) => `feedback_group('${t}')`),
  iso: [`iso('2025-03-04 05:06:07.891'::TIMESTAMP)`],
};

describe('golden values of the scoring macros', () => {
  it('every macro at fixed inputs equals test/golden/macros.json', async () => {
    const instance = await DuckDBInstance.create(':memory:');
    const conn = await instance.connect();
    try {
      await conn.run(sqlFile('score/macros'));
      const values: Record<string, Record<string, unknown>> = {};
      for (const [macro, calls] of Object.entries(macroCalls)) {
        values[macro] = {};
        for (const call of calls) {
          const { v } = readRows(await conn.runAndReadAll(`SELECT ${call} AS v`))[0]!;
          // Twelve significant digits: ln() may differ in the last bit between platforms.
          values[macro][call] = typeof v === 'number' ? Number(v.toPrecision(12)) : v;
        }
      }
      expectGolden('macros', values, rowPerLine);
    } finally {
      conn.closeSync();
      instance.closeSync();
    }
  });
});
