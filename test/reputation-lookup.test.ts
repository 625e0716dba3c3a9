// GET /v1/reputation/{address} beyond the happy path: status (scored, stale, known_unscored) and
// the configurable lag behind it (STALE_AFTER_SECONDS), the 2.8 view variant with its policy and
// plan rules, and the errors of the variant.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import path from 'node:path';
import { loadConfig } from '../pipeline/config.ts';
import { createLogger, silentLogger } from '../pipeline/log.ts';
import { startServer, type RunningServer } from '../api/server.ts';
import { createAccount } from '../api/accounts.ts';
import { cliEnv, repoRoot, runCli } from './helpers/cli.ts';
import { tempDataDir } from './helpers/temp.ts';

// From test/fixtures/import/transfers.csv: paid once through a known facilitator (2025-11-03).
const payee = '0x74f29ee5e3abd86b4d83a8f41eb26857e5ceef0c';
const payer = '0x55fb6e92683190f4cade79f1b676ed77b599fbed';
const solana = 'awF1tyZBDfKCYFYkyrsjVbDSdiduVJECqra5UrUTQCh';

describe('reputation lookups: status and the view variant', () => {
  const dataDir = tempDataDir('reputation-lookup');
  let server: RunningServer;
  const logLines: string[] = [];
  let keys: { free: string; paid: string };
  let now = new Date('2025-11-20T00:00:00Z');

  beforeAll(async () => {
    const imported = await runCli(['import', path.join(repoRoot, 'test/fixtures/import/transfers.csv'), '--kind', 'transfers'], cliEnv(dataDir));
    expect(imported.code).toBe(0);
    server = await startServer(loadConfig({ DATA_DIR: dataDir, PORT: '0' }), createLogger('test', (line) => logLines.push(line)), { now: () => now });
    await (await server.jobs.run('score', {})).done;
    // The run is "now" for the status rules: move the clock to just after it.
    const [run] = await server.store.read(`SELECT strftime(scored_at, '%Y-%m-%dT%H:%M:%SZ') AS t FROM scoring_runs ORDER BY run_id DESC LIMIT 1`);
    now = new Date(Date.parse(String(run!.t)) + 60_000);
    keys = {
      free: (await createAccount(server.store, { plan: 'free' }, server.keys)).api_key,
      paid: (await createAccount(server.store, { plan: 'growth' }, server.keys)).api_key,
    };
  });
  afterAll(() => server?.close());

  const lookup = async (address: string, key: string, query = '') => {
    const res = await fetch(`${server.url}/v1/reputation/${address}${query}`, { headers: { 'X-API-Key': key } });
    return { status: res.status, headers: res.headers, body: (await res.json()) as any };
  };

  it('a record is scored within 24 h of the newest run, stale after', async () => {
    const record = (await lookup(payee, keys.paid)).body;
    // Not an agent owner and no feedback: operator_score and reputation are left out, not null (spec 2.7).
    expect('operator_score' in record || 'reputation' in record).toBe(false);
    const first = record.score;
    expect(first.status).toBe('scored');
    // updated_at is the newest run's time, as the score's scored_at (spec 2.7: ISO-8601).
    expect(first.scored_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(record.updated_at).toBe(first.scored_at);
    // Paid through a known facilitator: verified activity, so no caveat that it is unverified.
    expect(record.chains[0].classification).toMatchObject({ has_candidate_payment_activity: true, has_verified_payment_activity: true });
    expect(record.chains[0].activity).toMatchObject({ as_candidate_payer: 0, as_candidate_payee: 1, as_verified_payer: 0, as_verified_payee: 1 });
    expect(record.caveats.filter((c: string) => /unverified/.test(c))).toEqual([]);
    const saved = now;
    // The default lag, to the second: 24 h after the run is still scored, a second more is stale.
    now = new Date(Date.parse(first.scored_at) + 86_400_000);
    expect((await lookup(payee, keys.paid)).body.score.status).toBe('scored');
    now = new Date(Date.parse(first.scored_at) + 86_401_000);
    try {
      const stale = (await lookup(payee, keys.paid)).body;
      expect(stale.score.status).toBe('stale');
      expect(stale.chains[0].score.status).toBe('stale');
      const usedBefore = Number((await lookup(payee, keys.paid)).headers.get('x-quota-used'));
      logLines.length = 0;
      const variant = await lookup(payee, keys.paid, '?view=summary');
      expect(variant.status).toBe(503);
      expect(variant.body.error.code).toBe('stale_data');
      // The service failed the request: not billed, and no X-Quota-* headers (spec 4.2: success and 429).
      expect(variant.headers.get('x-quota-used')).toBeNull();
      expect(variant.headers.get('x-quota-limit')).toBeNull();
      expect(Number((await lookup(payee, keys.paid)).headers.get('x-quota-used'))).toBe(usedBefore + 1);
      // An answer the API chose, not a fault: a warning with its code, no error or stack.
      // Logged with the answer's request id, so an operator finds the request a client reports.
      expect(logLines.filter((l) => / (warn|error) /.test(l))).toEqual([expect.stringMatching(new RegExp(` warn test request refused \\{"requestId":"${variant.headers.get('x-request-id')}",.*"code":"stale_data"`))]);
    } finally {
      now = saved;
    }
  });

  it('the free record is redacted to what spec 2.7 lists: no subject, and of each chain only its score and entity type', async () => {
    now = new Date(now.getTime() + 1_000); // the free plan's one request per second
    const { status, body } = await lookup(payee, keys.free);
    expect(status).toBe(200);
    const scoreFields = ['grade', 'scored_at', 'status', 'value', 'version'];
    expect(Object.keys(body).sort()).toEqual(['agents', 'caveats', 'chains', 'data_semantics', 'score', 'updated_at', 'verification_level']);
    expect(Object.keys(body.score).sort()).toEqual(scoreFields);
    expect(body.chains).toHaveLength(1);
    for (const chain of body.chains) {
      expect(Object.keys(chain).sort()).toEqual(['chain', 'classification', 'score']);
      expect(Object.keys(chain.score).sort()).toEqual(scoreFields);
      expect(Object.keys(chain.classification)).toEqual(['entity_type']);
    }
  });

  it('an address known to the index but never scored is known_unscored', async () => {
    const address = '0x00000000000000000000000000000000000000b0';
    await server.store.write((tx) => tx.run(`INSERT INTO known_addresses VALUES ($1, 'evm', 'assess', utc_now())`, [address]));
    const { status, body } = await lookup(address, keys.paid);
    expect(status).toBe(200);
    // The whole record: no run has scored it, so no operator_score or reputation, no time stamps,
    // and a caveat saying so.
    expect(body).toEqual({
      subject: { address, chains: [] },
      score: { value: null, grade: null, scored_at: null, status: 'known_unscored', version: 'v1' },
      verification_level: 'none',
      chains: [],
      agents: [],
      data_semantics: 'candidate_payment_activity_with_verified_subset',
      caveats: [expect.stringMatching(/not scored yet/)],
      updated_at: null,
    });
    // The free plan's record is redacted here too: no subject (an account of its own, so the
    // shared free key's one request per second stays with the tests that follow).
    const free = await lookup(address, (await createAccount(server.store, { plan: 'free' }, server.keys)).api_key);
    expect(free.status).toBe(200);
    expect(free.body.score).toMatchObject({ status: 'known_unscored' });
    const { subject, ...redacted } = body;
    expect(free.body).toEqual(redacted);
    // The view variant: 200 with no score while the pipeline keeps up, 503 stale_data once the
    // newest run is older than the lag, as for a scored address (spec 7.1).
    expect((await lookup(address, keys.paid, '?view=summary')).body.score).toBeNull();
    const saved = now;
    now = new Date(Date.parse((await lookup(payee, keys.paid)).body.score.scored_at) + 86_401_000);
    try {
      const behind = await lookup(address, keys.paid, '?view=summary');
      expect([behind.status, behind.body.error?.code]).toEqual([503, 'stale_data']);
      expect((await lookup(address, keys.paid)).body.score.status).toBe('known_unscored');
    } finally {
      now = saved;
    }
    // Scoring it on demand gives it a minimal record on the default chain.
    await (await server.jobs.run('score', { address })).done;
    const scored = (await lookup(address, keys.paid)).body;
    expect(scored.score).toMatchObject({ value: 13, grade: 'F', status: 'scored' });
    expect(scored.chains[0].classification).toMatchObject({ entity_type: 'unknown', reasons: ['no_indexed_activity'] });
    // No payments at all is not candidate-only activity: only the two standing caveats (docs/scoring.md).
    expect(scored.caveats).toEqual([
      'Payment activity is candidate x402 activity (EIP-3009 authorised transfers and Permit2 settlements); the verified subset was submitted by known facilitators.',
      'Scores are computed in batch runs and may lag the chain.',
    ]);
  });

  it('an agent owner registered since the newest run is known_unscored; an address nothing names is 404', async () => {
    const owner = '0x00000000000000000000000000000000000000b1';
    const before = await lookup(owner, keys.paid);
    expect(before.status).toBe(404);
    expect(before.body.error).toMatchObject({ code: 'unknown_address', can_assess: true });
    // Ingestion wrote its registration (the identity registry's Registered event); no run since.
    await server.store.write((tx) =>
      tx.run(`INSERT INTO agent_registrations VALUES ('base', 100, $1, 0, '0x8004a169fb4a3325136eb29fa0ceb6d2e539a432', 77, 'https://agent77.example/agent.json', $2)`, [
        `0x${'b1'.padStart(64, '0')}`,
        owner,
      ]),
    );
    const { status, body } = await lookup(owner, keys.paid);
    expect(status).toBe(200);
    expect(body.score).toEqual({ value: null, grade: null, scored_at: null, status: 'known_unscored', version: 'v1' });
    expect(body.chains).toEqual([]);
  });

  it('an agent owner by transfer or by import since the newest run is known_unscored too', async () => {
    const transferee = '0x00000000000000000000000000000000000000b2';
    const importedOwner = '0x00000000000000000000000000000000000000b3';
    for (const address of [transferee, importedOwner]) expect((await lookup(address, keys.paid)).status, address).toBe(404);
    await server.store.write(async (tx) => {
      // The identity registry's Transfer of agent 77 to a new owner, and an agent from an import.
      await tx.run(`INSERT INTO agent_transfers VALUES ('base', 101, $1, 0, '0x8004a169fb4a3325136eb29fa0ceb6d2e539a432', 77, '0x00000000000000000000000000000000000000b1', $2)`, [
        `0x${'b2'.padStart(64, '0')}`,
        transferee,
      ]);
      await tx.run(`INSERT INTO imported_agents VALUES ('imp_lookup', 'base', '0x8004a169fb4a3325136eb29fa0ceb6d2e539a432', 78, $1, 'https://agent78.example/agent.json', 100, NULL, NULL)`, [importedOwner]);
    });
    for (const address of [transferee, importedOwner]) {
      const { status, body } = await lookup(address, keys.paid);
      expect(status, address).toBe(200);
      expect(body.score, address).toMatchObject({ value: null, status: 'known_unscored' });
    }
  });

  it('view=summary has the 2.8 summary fields and a 300 s cache', async () => {
    const { status, headers, body } = await lookup(payee, keys.free, '?view=summary');
    expect(status).toBe(200);
    expect(Object.keys(body).sort()).toEqual(
      ['address', 'cache', 'computed_at', 'data_through', 'grade', 'highlights', 'model_version', 'preview', 'score'].sort(),
    );
    expect(body).toMatchObject({
      address: payee,
      model_version: 'v1',
      data_through: { chain: 'base', block: null },
      cache: { ttl_seconds: 300 },
      highlights: { total_transactions: 1, unique_counterparties: 1, total_volume_usdc: 1, last_seen: '2025-11-03T10:15:00Z' },
    });
    expect(body.preview).toEqual({ allow_hint: false, grade_hint: body.grade });
    expect(headers.get('cache-control')).toBe('private, max-age=300');
  });

  it('view=full adds decision, factors, metrics, identity, attestation and billing', async () => {
    const { body, headers } = await lookup(payee, keys.paid, '?view=full');
    expect(body.cache).toEqual({ ttl_seconds: 60 });
    // The header says what the body does: the paid plan's 60 s.
    expect(headers.get('cache-control')).toBe('private, max-age=60');
    expect(body.decision).toEqual({
      allow: false,
      reasons: ['below_min_transactions', 'stale_activity', 'low_diversity', 'grade_below_threshold'],
      policy: { min_grade: 'C', min_transactions: 10 },
    });
    expect(Object.keys(body.factors)).toEqual(['volume', 'diversity', 'consistency', 'recency', 'tenure']);
    for (const factor of Object.values(body.factors) as { score: number; weight: number }[]) {
      expect(factor.score).toBeGreaterThanOrEqual(0);
      expect(factor.score).toBeLessThanOrEqual(100);
    }
    expect(body.factors.recency.raw.days_since_last_seen).toBe(Math.floor((now.getTime() - Date.parse('2025-11-03T10:15:00Z')) / 86_400_000));
    expect(body.metrics).toMatchObject({ total_transactions: 1, first_seen: '2025-11-03T10:15:00Z', avg_latency_ms: null });
    expect(body).toMatchObject({ identity: null, attestation: { status: 'none' }, billing: { tier: 'growth' } });
    // billing.tier is the caller's plan, whichever paid plan it is.
    for (const plan of ['starter', 'enterprise'] as const) {
      const { api_key } = await createAccount(server.store, { plan }, server.keys);
      expect((await lookup(payee, api_key, '?view=full')).body.billing).toEqual({ tier: plan });
    }
  });

  it('the policy decides: a lenient one allows, and preview follows it', async () => {
    const { body } = await lookup(payer, keys.paid, '?view=full&min_grade=F&min_transactions=1');
    expect(body.decision.allow).toBe(true);
    expect(body.decision.reasons).toContain('sufficient_transaction_history');
    expect(body.decision.policy).toEqual({ min_grade: 'F', min_transactions: 1 });
    expect(body.preview.allow_hint).toBe(true);
    // min_transactions 0 is a policy too (at least one payment is still needed).
    const zero = await lookup(payer, keys.paid, '?view=full&min_grade=F&min_transactions=0');
    expect(zero.status).toBe(200);
    expect(zero.body.decision).toMatchObject({ allow: true, policy: { min_grade: 'F', min_transactions: 0 } });
  });

  it('a policy without view answers the summary variant (view defaults to summary), its preview under that policy', async () => {
    const { status, body } = await lookup(payer, keys.paid, '?min_grade=F&min_transactions=1');
    expect(status).toBe(200);
    expect(Object.keys(body).sort()).toEqual(
      ['address', 'cache', 'computed_at', 'data_through', 'grade', 'highlights', 'model_version', 'preview', 'score'].sort(),
    );
    expect(body.preview).toEqual({ allow_hint: true, grade_hint: body.grade });
    // The default policy (C, 10 payments) denies the same address.
    expect((await lookup(payer, keys.paid, '?view=summary')).body.preview.allow_hint).toBe(false);
  });

  it('the 2.7 record is sent with the plan\'s cache TTL: 300 s on free, 60 s on paid plans', async () => {
    now = new Date(now.getTime() + 1_000);
    const free = await lookup(payee, keys.free);
    expect([free.status, free.headers.get('cache-control')]).toEqual([200, 'private, max-age=300']);
    const paid = await lookup(payee, keys.paid);
    expect([paid.status, paid.headers.get('cache-control')]).toEqual([200, 'private, max-age=60']);
  });

  it('paid-only parameters on the free plan answer 402; bad parameters 400; Solana has no variant', async () => {
    for (const query of ['?view=full', '?min_grade=B', '?view=summary&min_transactions=3']) {
      // The free plan answers one request per second (spec 8): step the server's clock.
      now = new Date(now.getTime() + 1_000);
      const res = await lookup(payee, keys.free, query);
      expect(res.status).toBe(402);
      expect(res.body.error.code).toBe('payment_required');
    }
    for (const query of ['?chain=Base%20Mainnet', '?view=detailed', '?min_grade=E', '?min_transactions=-1', '?min_transactions=two', '?min_transactions=1.5']) {
      const res = await lookup(payee, keys.paid, query);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('bad_request');
    }
    // Only digits: no blank (which coerced to 0 and silently replaced the default of 10), hex,
    // exponent or sign; and a repeated parameter is named as such, not reported as a bad value.
    for (const [query, message] of [
      ['?view=full&min_transactions=', 'min_transactions must be a whole number from 0 to 1000000000'],
      ['?view=full&min_transactions=%20', 'min_transactions must be a whole number from 0 to 1000000000'],
      ['?view=full&min_transactions=0x10', 'min_transactions must be a whole number from 0 to 1000000000'],
      ['?view=full&min_transactions=1e3', 'min_transactions must be a whole number from 0 to 1000000000'],
      ['?view=full&min_transactions=-0', 'min_transactions must be a whole number from 0 to 1000000000'],
      ['?view=full&min_transactions=3&min_transactions=3', 'min_transactions must be given once'],
      ['?view=full&view=full', 'view must be given once'],
      ['?view=full&min_grade=C&min_grade=D', 'min_grade must be given once'],
      ['?chain=base&chain=devnet', 'chain must be given once'],
      // Each chain asked for is a cache entry of its own: names are bounded.
      [`?chain=${'a'.repeat(65)}`, 'chain must be a chain name such as base (a-z, 0-9, -; at most 64)'],
      ['?view=full&min_grade=E', 'min_grade must be one of A, B, C, D, F'],
    ]) {
      // Within the paid plan's per-second limit: step the server's clock.
      now = new Date(now.getTime() + 1_000);
      const res = await lookup(payee, keys.paid, query);
      expect([query, res.status, res.body.error?.code, res.body.error?.message]).toEqual([query, 400, 'bad_request', message]);
    }
    now = new Date(now.getTime() + 1_000);
    expect((await lookup(payee, keys.paid, `?chain=${'a'.repeat(64)}`)).status).toBe(200);
    now = new Date(now.getTime() + 1_000);
    const huge = await lookup(payee, keys.paid, '?view=full&min_transactions=99999999999999999999999');
    expect([huge.status, huge.body.error.message]).toEqual([400, 'min_transactions must be at most 1000000000']);
    // A policy alone asks for the variant too: refused for Solana as view is.
    for (const query of ['?view=summary', '?min_grade=B', '?min_transactions=1']) {
      const sol = await lookup(solana, keys.paid, query);
      expect([sol.status, sol.body.error?.code], query).toEqual([400, 'invalid_address']);
    }
    // Without the variant a Solana address is served the 2.7 record.
    expect((await lookup(solana, keys.paid)).body.subject.chains).toEqual(['solana']);
  });

  // Last: it replaces the server with one whose lag is an hour.
  it('STALE_AFTER_SECONDS moves the threshold: scored up to the lag, then stale, 503 stale_data and /health degraded', async () => {
    await server.close();
    server = await startServer(loadConfig({ DATA_DIR: dataDir, PORT: '0', STALE_AFTER_SECONDS: '3600' }), silentLogger, { now: () => now });
    const scoredAt = Date.parse((await lookup(payee, keys.paid)).body.score.scored_at);
    // A server started on runs it did not make caches too: its first lookup taught it the newest run.
    const hits = server.records.hits;
    expect((await lookup(payee, keys.paid)).status).toBe(200);
    expect(server.records.hits).toBe(hits + 1);
    const at = async (secondsAfterRun: number) => {
      now = new Date(scoredAt + secondsAfterRun * 1_000);
      const record = (await lookup(payee, keys.paid)).body;
      const variant = await lookup(payee, keys.paid, '?view=summary');
      const health = (await (await fetch(`${server.url}/health`)).json()) as any;
      return { status: record.score.status, chain: record.chains[0].score.status, variant: variant.status, code: variant.body.error?.code, health: health.status, stale: health.scoring.stale };
    };
    expect(await at(3_599)).toEqual({ status: 'scored', chain: 'scored', variant: 200, code: undefined, health: 'ok', stale: false });
    // Exactly the lag is still scored: stale is strictly older.
    expect(await at(3_600)).toEqual({ status: 'scored', chain: 'scored', variant: 200, code: undefined, health: 'ok', stale: false });
    // Well inside the default 24 h: only the configured lag makes this stale.
    expect(await at(3_601)).toEqual({ status: 'stale', chain: 'stale', variant: 503, code: 'stale_data', health: 'degraded', stale: true });
    // And back (a newer run would do the same): the served records follow the clock, cached or not.
    expect(await at(3_000)).toMatchObject({ status: 'scored', variant: 200 });
  });
});

// A fault (here: the database closed under the running server) is answered 500 internal_error with
// a generic message, and logged as an error with the answer's request id and the stack.
describe('a request that fails inside the server', () => {
  const dataDir = tempDataDir('internal-error');
  const logLines: string[] = [];
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer(loadConfig({ DATA_DIR: dataDir, PORT: '0' }), createLogger('test', (line) => logLines.push(line)));
  });
  afterAll(() => server?.close());

  it('answers 500 internal_error without details and logs the fault with the request id', async () => {
    const { api_key } = await createAccount(server.store, { plan: 'starter' }, server.keys);
    await server.store.close();
    logLines.length = 0;
    const res = await fetch(`${server.url}/v1/reputation/${payee}`, { headers: { 'X-API-Key': api_key } });
    expect([res.status, await res.json()]).toEqual([500, { error: { code: 'internal_error', message: 'internal error; retry later or contact support with the X-Request-Id' } }]);
    const id = res.headers.get('x-request-id');
    expect(id).toMatch(/^req_/);
    expect(logLines.filter((l) => / (warn|error) /.test(l))).toEqual([expect.stringMatching(new RegExp(` error test request failed \\{"requestId":"${id}","path":"/v1/reputation/${payee}","error":".*\\\\n\\s+at `))]);
  });
});
